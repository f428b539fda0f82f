"""The state document of PROTOCOL.md: the world models, the structural sharing of their copies, the
derived fields (HEALTH-3..7, WP-5) and the visibility index (DET-4..8), one per world.

Imports only `vtt_bridge.rules` below it.
"""
