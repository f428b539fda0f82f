"""The pure rules: no I/O, no asyncio, no globals; deterministic given their dice.

Each module takes frozen models and returns an outcome with ordered `Step`s that cite rule ids
from docs/rules.md (HEALTH-2, RANK-5, ...).
"""
