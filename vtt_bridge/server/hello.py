"""What the server makes of a client's `hello` besides the token: whether the Foundry module that
says hello is the sidecar's own version."""

from __future__ import annotations

MODULE_CLIENT = "foundry-vtt-bridge"
"""The client name the Foundry module says in `hello` (with its version)."""


def version_mismatch(client_name: str, client_version: str, version: str) -> str | None:
    """What to log when the Foundry module's version is not the sidecar's `version` (None: they match,
    or the client is not the module or does not say)."""
    if client_name != MODULE_CLIENT or not client_version or client_version == version:
        return None
    return (
        f"the Foundry module is version {client_version}, this sidecar {version}: update the module "
        f"(Foundry's Add-on Modules, or module.zip from the status page) so the two match"
    )
