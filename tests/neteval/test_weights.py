"""The network weights file: a round trip keeps every array, and each kind of damage is refused
with a message that says what is wrong."""
from __future__ import annotations

import struct
import zlib

import numpy as np
import pytest

from gomocup_bot.neteval import reference as R
from gomocup_bot.neteval import weights as W


def _write(tmp_path, w=None):
    w = w or R.random_weights(feature=8, hidden=6, seed=2, rules=("freestyle", "standard", "renju"))
    path = tmp_path / "n.gbn"
    W.save(w, path)
    return w, path


def test_round_trip_keeps_every_array(tmp_path):
    w, path = _write(tmp_path)
    back = W.load(path)
    assert (back.feature, back.hidden, back.act_scale, back.pool_norm, back.scale) == (8, 6, 256, 16.0, 250.0)
    assert set(back.rules) == {"freestyle", "standard", "renju"}
    for name, net in w.rules.items():
        for field in ("cbsel", "codebook", "w1", "b1", "w2", "b2", "wp", "bp", "tw"):
            assert np.array_equal(np.asarray(getattr(back.rules[name], field)), np.asarray(getattr(net, field))), (name, field)
    assert back.rules["renju"].codebook.shape[0] == 2 and list(back.rules["renju"].cbsel) == [0, 1]
    assert back.notes == {"random": 2}
    assert all(net.boards == W.TRAINED_BOARDS for net in back.rules.values())
    assert W.verify(path) is None


def _rewrite_header(path, change):
    """The file with its JSON header changed by ``change`` (a new length and checksum)."""
    import json

    data = path.read_bytes()
    start = len(W.MAGIC) + 4
    (n,) = struct.unpack_from("<I", data, len(W.MAGIC))
    header = json.loads(data[start:start + n])
    change(header)
    raw = json.dumps(header).encode()
    body = W.MAGIC + struct.pack("<I", len(raw)) + raw + data[start + n:-4]
    path.write_bytes(body + struct.pack("<I", zlib.crc32(body)))


def test_a_rule_may_have_a_net_for_other_boards_beside_its_main_net(tmp_path):
    w = R.random_weights(feature=8, hidden=6, seed=3, rules=("freestyle", "standard"))
    other = R.random_weights(feature=8, hidden=6, seed=4, rules=("freestyle",)).rules["freestyle"]
    other.boards = ((20, 20),)
    w.sized.append(("freestyle", other))
    path = tmp_path / "n.gbn"
    W.save(w, path)
    back = W.load(path)
    assert back.rules["freestyle"].boards == ((15, 15),) and [n for n, _ in back.sized] == ["freestyle"]
    assert np.array_equal(back.net_for("freestyle", 15, 15).codebook, w.rules["freestyle"].codebook)
    assert np.array_equal(back.net_for("freestyle", 20, 20).codebook, other.codebook)
    assert back.net_for("freestyle", 19, 19) is None  # no net for it: the tables
    assert back.net_for("standard", 20, 20) is None  # the 20 x 20 net is freestyle's only
    # two nets of a rule for one board: refused when written, and in a file
    other.boards = ((20, 20), (15, 15))
    with pytest.raises(W.NetWeightsError, match="two nets of rule freestyle for the same board"):
        W.dumps(w)
    other.boards = ((20, 20),)

    def overlap(header):
        header["rules"][-1]["boards"] = [[15, 15]]

    _rewrite_header(path, overlap)
    with pytest.raises(W.NetWeightsError, match="two nets of rule freestyle for the same board"):
        W.load(path)
    w.rules.pop("freestyle")  # a net for more boards without the rule's main net
    with pytest.raises(ValueError, match="needs the rule's main net"):
        W.dumps(w)


def test_the_boards_a_net_plays_round_trip_and_default_to_the_trainers(tmp_path):
    w = R.random_weights(feature=8, hidden=6, seed=3, rules=("freestyle", "standard"))
    w.rules["freestyle"].boards = ((15, 15), (20, 20), (13, 9))
    path = tmp_path / "n.gbn"
    W.save(w, path)
    back = W.load(path)
    assert back.rules["freestyle"].boards == ((15, 15), (20, 20), (13, 9))
    assert back.rules["standard"].boards == ((15, 15),)

    def drop(header):  # a file from before the key: the trainer's board
        for r in header["rules"]:
            r.pop("boards")

    _rewrite_header(path, drop)
    assert W.load(path).rules["freestyle"].boards == ((15, 15),)


@pytest.mark.parametrize("boards", [[[15]], [[40, 40]], [], "15x15"])
def test_implausible_boards_are_refused(tmp_path, boards):
    _, path = _write(tmp_path)
    _rewrite_header(path, lambda h: h["rules"][1].__setitem__("boards", boards))
    with pytest.raises(W.NetWeightsError, match="boards"):
        W.load(path)


@pytest.mark.parametrize("damage, message", [
    (lambda b: b[:-10], "checksum"),
    (lambda b: b[:100] + bytes([b[100] ^ 1]) + b[101:], "checksum"),
    (lambda b: b"GBEVAL1\n" + b[7:], "bad magic"),
    (lambda b: b"", "bad magic"),
])
def test_a_damaged_file_is_refused_with_the_reason(tmp_path, damage, message):
    _, path = _write(tmp_path)
    path.write_bytes(damage(path.read_bytes()))
    with pytest.raises(W.NetWeightsError, match=message):
        W.load(path)
    assert message in W.verify(path)


def test_a_missing_file_and_another_version_say_so(tmp_path, monkeypatch):
    assert "cannot read" in W.verify(tmp_path / "nothing.gbn")
    monkeypatch.setenv(W.ENV_VAR, str(tmp_path / "nothing.gbn"))
    with pytest.raises(W.NetWeightsError, match="cannot read"):
        W.load()
    monkeypatch.setattr(W, "VERSION", W.VERSION + 1)
    w, path = _write(tmp_path)
    monkeypatch.setattr(W, "VERSION", W.VERSION - 1)
    with pytest.raises(W.NetWeightsError, match="not version"):
        W.load(path)


def test_wrong_shapes_are_refused_when_written(tmp_path):
    w = R.random_weights(feature=8, hidden=6, seed=2)
    w.rules["freestyle"].wp = np.zeros((2, 7), dtype=np.float32)
    with pytest.raises(ValueError, match="wp"):
        W.save(w, tmp_path / "bad.gbn")


def test_a_codebook_beyond_the_limit_is_refused_when_written_and_read(tmp_path):
    w, path = _write(tmp_path)
    w.rules["standard"].codebook[0, 5, 3] = -(W.CODEBOOK_LIMIT + 1)
    with pytest.raises(ValueError, match="beyond 8191"):
        W.save(w, tmp_path / "bad.gbn")
    # a file written by another program: the header and the checksum are sound, the entry is not
    data = bytearray(path.read_bytes())
    body = data[:-4]
    good = W.load(path).rules["freestyle"].codebook
    offset = bytes(body).index(np.ascontiguousarray(good).tobytes()[:64])
    body[offset:offset + 2] = np.int16(W.CODEBOOK_LIMIT + 1).tobytes()
    path.write_bytes(bytes(body) + struct.pack("<I", zlib.crc32(bytes(body))))
    with pytest.raises(W.NetWeightsError, match="rule freestyle: a codebook entry of 8192"):
        W.load(path)


def test_the_shipped_file_is_sound_small_and_has_every_rules_net(monkeypatch):
    monkeypatch.delenv(W.ENV_VAR, raising=False)
    assert W.verify() is None
    data, _ = W.read_bytes()
    assert len(data) < 20 * 1024 * 1024
    shipped = W.load()
    assert set(shipped.rules) == {"freestyle", "standard", "renju"}
    assert shipped.rules["renju"].codebook.shape[0] == 2  # black and white to move read their own
