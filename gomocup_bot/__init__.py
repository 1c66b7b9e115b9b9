"""gomocup-bot: a gomoku brain for Gomocup/Piskvork managers.

Importing this package must stay cheap (no numba, no numpy): the brain's match clock starts at
process creation, so heavy modules are imported lazily where they are needed.
"""
__version__ = "0.1.0"
