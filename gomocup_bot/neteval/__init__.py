"""The network evaluation: a line-pattern codebook net kept incrementally beside the board.

Every empty square is seen along its four lines: the ten cells around it on a line (own,
opponent or wall, empty; the board's window number, `core.board` keys) index a learned feature
vector (the codebook). A square's four vectors are summed and clipped; the board's squares are
summed into one pooled vector per side to move; a small value head reads the pooled vector and
the threat mask, a linear policy head scores each square from its own clipped features.

- `weights`: the weights file (``net.gbn``): format, checks, the arrays as numpy.
- `state`: the numba kernels: the per-board accumulators, their incremental update on a move
  and its take-back, the value and the policy scores.
- `reference`: the same net computed from the cells alone in plain numpy (tests, the trainer's
  check of an export).

Importing the package is cheap; the kernels load with `state`.
"""
