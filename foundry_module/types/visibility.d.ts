// Declarations for the visibility layer (visibility-canvas.mjs), written from the public API docs
// (foundryvtt.com/api v13): only the Token members the mixin overrides or reads. Loose on purpose.

/** The parts of a Foundry Token placeable (v12-v14) the visibility mixin touches. */
interface VttBridgeTokenLike {
  document: any;
  actor?: any;
  controlled: boolean;
  visible: boolean;
  children: any[];
  border?: any;
  mesh?: any;
  w?: number;
  h?: number;
  renderFlags?: { set(flags: Record<string, boolean>): void };
  targeted?: Set<unknown>;
  addChild(child: any): any;
  get isVisible(): boolean;
  _refreshVisibility(): void;
  _refreshState(): void;
  _refreshMesh?(): void;
  _getBorderColor(...args: any[]): number | null;
  _canHUD(user: any, event: any): boolean;
  _canHover(user: any, event: any): boolean;
  _canControl(user: any, event: any): boolean;
  _canView?(user: any, event: any): boolean;
  _canDrag?(user: any, event: any): boolean;
  _isLightSource?(): boolean;
  setTarget(targeted?: boolean, options?: Record<string, unknown>): unknown;
  render(renderer: any): void;
  [key: string]: any;
}

/** The configured Token class (`CONFIG.Token.objectClass`). */
type VttBridgeTokenClass = new (...args: any[]) => VttBridgeTokenLike;
