"""Rule codes as managers send them (0, 1, 2, 4, 8, 9) and the Yixin renju alias."""
import pytest

from protocol.rules import CARO, CARO_EXACT, EXACT_FIVE, FREESTYLE, RENJU, RuleError, Rules


@pytest.mark.parametrize(
    "code, expected",
    [
        (0, FREESTYLE),
        (1, EXACT_FIVE),
        (2, Rules(continuous=True)),
        (4, RENJU),
        (5, RENJU),  # exact five is implied by renju
        (8, CARO),
        (9, CARO_EXACT),
        (3, Rules(exact_five=True, continuous=True)),
    ],
)
def test_gomocup_codes(code, expected):
    assert Rules.from_code(code) == expected


def test_yixin_reads_2_as_renju():
    assert Rules.from_code(2, yixin=True) == RENJU


@pytest.mark.parametrize("code", [-1, 16, 12, 32])
def test_unsupported_codes(code):
    with pytest.raises(RuleError):
        Rules.from_code(code)


@pytest.mark.parametrize("rules", [FREESTYLE, EXACT_FIVE, RENJU, CARO, CARO_EXACT])
def test_code_round_trip(rules):
    assert Rules.from_code(rules.code) == rules
    assert Rules.from_name(rules.name) == rules
