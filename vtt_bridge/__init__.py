"""vtt-bridge: a rules sidecar for a d10 tabletop RPG, driven by a Foundry VTT module."""

__version__ = "0.8.0"
