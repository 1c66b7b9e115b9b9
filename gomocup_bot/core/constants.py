"""Plain integer constants shared by the numba kernels (numba freezes module ints at compile time)."""

EMPTY = 0
BLACK = 1
WHITE = 2
WALL = 3  # board edge padding and BOARD field 3 ("blocked") squares

# rule codes inside the kernels (a `protocol.rules.Rules` maps onto one of these)
RULE_FREESTYLE = 0  # k or more wins
RULE_EXACT = 1  # exactly k wins, both colours
RULE_CARO = 2  # k wins unless opponent stones at both ends; longer always wins
RULE_CARO_EXACT = 3  # only an unblocked run of exactly k wins
RULE_RENJU = 4  # black: exactly k and fouls; white: k or more

# indices into Board.meta
M_WIDTH = 0
M_HEIGHT = 1
M_K = 2
M_RULE = 3
M_PAD = 4
M_STRIDE = 5
M_NMOVES = 6  # moves on the stack (stones placed with make)
M_TABLE = 7  # 1 when line patterns come from the lookup table (k <= TABLE_MAX_K)
M_SIZE = 8  # length of the padded cell array
M_SYNCED = 9  # k > TABLE_MAX_K: 1 once pattern codes match hash[1]
M_UNDO_FLOOR = 10  # moves below this index have no valid undo record (the layer was rebuilt after them)
M_LEN = 16

TABLE_MAX_K = 5  # 3**(2k) table entries: 59049 for k = 5

# Line pattern codes: what a stone of one colour on an empty point makes along one direction.
P_NONE = 0  # no run of k can ever pass through the point on this line
P_ONE = 1  # some room, little else
P_TWO = 2  # two (k-3 own stones) with room
P_THREE = 3  # closed three: one more stone makes a simple four
P_THREE_BROKEN = 4  # open three with a gap (e.g. .X.XX.)
P_THREE_OPEN = 5  # contiguous open three: one more stone makes an open four
P_FOUR = 6  # simple four: exactly one completing point
P_FOUR_OPEN = 7  # two or more completing points (open four, or two fours on one line)
P_FIVE = 8  # the stone completes a run of k (rule-exact except caro's both-ends block)
N_PATTERNS = 9

# The pattern layer's finer line codes (`core.classes`; after renju's P_OVERLINE = 9): the
# evaluation tells twos and ones that can grow into open threes from those that cannot. The
# threat classes read them as P_TWO and P_ONE.
L_TWO_OPEN = 10  # one more stone makes an open three, in one or two ways
L_TWO_FLEX = 11  # ... in three or more ways
L_ONE_OPEN = 12  # two or more cells make an open two

# renju foul codes (same meaning as tournament.game.endings)
FOUL_NONE = 0
FOUL_DOUBLE_FOUR = 1
FOUL_DOUBLE_THREE = 2
FOUL_OVERLINE = 3

# game results returned by playouts
RESULT_DRAW = 0  # or BLACK / WHITE for the winner
