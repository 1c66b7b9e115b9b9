"""Tournaments on a Dask distributed cluster: `--cluster tcp://SCHEDULER:8786` or `--cluster local:N`.

Two roles:

- The coordinator (the `gomocup-tournament` process) plans exactly as a local run does — the same plan
  slots, the same opening for each pair, the same ladder planner and SPRT — and submits every game pair
  as one Dask task. It alone writes the SQLite database.
- A worker runs the task: it launches both engines itself (built-ins with its own Python, command lines
  as its own file system has them, `tcp://` brains wherever they are), plays the pair's games one after
  the other through `runner.play_slot` (the local runner's game, clock and referee code) and returns
  the finished records. Each Dask worker thread plays one game at a time, so a worker started with
  `--nthreads` equal to its cores plays one game per core.

Exactly once: a worker reports each game the moment it ends (a Dask event on the run's topic) and again
in the task's result; the store's UNIQUE plan slot keeps the first copy and drops any other. When a
worker dies, Dask runs its task again elsewhere; the run's state (a Dask `Variable` the coordinator
keeps) lists the games already stored, so the new run skips them and only the game that was in progress
is replayed. Stopping: the state's `stop` flag (an SPRT decision) lets a running pair finish its game in
progress and start no other; a cancelled task (Ctrl-C, SIGTERM, or a coordinator that died and so
released its tasks) abandons its game within a fraction of a second and closes the engines. Unfinished
games are never stored, so `--resume` plays exactly the missing ones.

Three modules, one side each: `target` (the `--cluster` option, and whether Dask is installed),
`worker` (the task a Dask worker runs: its game host and `play_pair`), `coordinator` (`run_cluster`:
plans, submits, stores, stops). `distributed` is imported in functions only, when a run starts.

May import: `tournament.game`, `tournament.engines`, `tournament.results`,
`tournament.play`, `tournament.progress`. Only the command line imports this room.
"""
