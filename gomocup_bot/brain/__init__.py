"""The stdio brain: the session state machine (`session`), the async runner (`runner`), its entry
point (`main`, the `gomocup-bot brain` subcommand) and the time manager (`timeman`).

Importing this package must stay cheap (no numba, no numpy): see `gomocup_bot/__init__.py`.
"""
