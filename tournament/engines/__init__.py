"""Running one engine: what the user names (`spec`: command lines, `tcp://`, `builtin:`), the process
or TCP connection with timestamped reply lines (`connection`), the protocol session that launches,
STARTs and asks for moves on the manager's clock (`session`), the process tree's memory (`memory`),
and the numba warm-up of built-ins before games (`warmup`).

Shared by every command that talks to an engine: the engine API, matches, the cluster, the web board.
May import: `protocol`, `tournament.game` (endings), `tournament.progress`; `gomocup_bot` only by
name and dynamically (`spec` lists the registry's `builtin:` names, `warmup` looks for
`gomocup_bot.warmup` before running it as a subprocess).
"""
