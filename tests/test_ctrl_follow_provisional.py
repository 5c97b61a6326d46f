"""Flags recorded provisionally (session 10): a reading whose flag the camera could not make out for sure is
recorded with that flag *provisional* instead of asking at once, when the next reading's pictures will show
the flag again unmoved (``boardside.ctrl_follow.defer_flags``: pictures after every turn, the game goes on,
another colour plays next -- CTRL rulebook "Game Turn" step 3); the next reading checks it
(``vision.flag_recheck.recheck_flags``) and the player is asked only when it is still unsure or contradicted.

The pictures are the rendered (SIMULATED) fixture scenes; scene_003 one turn back is read trusted and exact."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

import pytest

from boardside.cli import main
from boardside.ctrl_follow import (
    FollowedGame,
    FollowFileError,
    Reading,
    defer_flags,
    deferrable_flags,
    judge,
    turn_movers,
)
from boardside.fixtures_render.camera import truth_calibration
from engine.ctrl import FlagSpot, GameRecord, State, Turn, new_state
from engine.ctrl.record import one_turn_back, random_turn
from engine.errors import BoardsideInputError

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "ctrl"
VIEWS = ("px", "mx", "py", "my", "top")


def _truth(scene: str) -> State:
    return State.from_json(json.loads((FIXTURES / scene / "scene.json").read_text())["state"])


def _pics(scene: str) -> list[str]:
    return [str(FIXTURES / scene / f"{v}.jpg") for v in VIEWS]


def _spot(f: FlagSpot) -> str:
    return f"{f.cell[0]},{f.cell[1]},{f.cell[2]} {f.points}"


def _played(rng_seed: int = 7) -> tuple[State, Turn, State]:
    """A 3-player opening turn that plugs the flag, with another legal spot for it."""
    before = new_state(3)
    rng = random.Random(rng_seed)
    while True:
        turn, after = random_turn(before, rng)
        if turn.placement is not None and turn.flag is not None and len(after.flag_spots(before.to_move)) > 1:
            return before, turn, after


def _game(initial: State, turns: list[Turn], provisional: tuple[str, ...] = ()) -> FollowedGame:
    return FollowedGame(GameRecord(initial, list(turns)), [Reading(0, (), True, "state file"),
                                                           Reading(len(turns), ("a.jpg",), True, "trusted",
                                                                   provisional=provisional)])


def test_a_flag_is_deferred_only_when_the_next_pictures_show_it_unmoved() -> None:
    before, turn, after = _played()
    mover = before.to_move
    assert mover is not None and after.to_move != mover
    assert defer_flags(before, [turn], [mover], 1) == [mover]
    assert defer_flags(before, [turn], [mover], None) == []  # any number of turns: its owner may play next
    assert defer_flags(before, [turn], [mover], 3) == []  # a round: its owner plays before the next pictures
    assert defer_flags(before, [turn], [after.to_move or ""], 1) == []  # the next turn is its owner's
    assert turn_movers(before, [str(turn)]) == [mover]


def test_a_final_score_sheet_never_rests_on_a_provisional_flag() -> None:
    finished = _truth("scene_009")
    assert finished.is_terminal()
    prev = one_turn_back(finished)
    assert prev is not None and prev.to_move is not None
    ending = _turn_between(prev, finished.blocks, finished.flags.get(prev.to_move))
    assert prev.apply(ending).is_terminal()
    assert defer_flags(prev, [ending], list(finished.colors), 1) == []  # asked now, before the final sheet


def _turn_between(prev: State, blocks: dict[tuple[int, int, int], str] | object, flag: FlagSpot | None) -> Turn:
    """The turn from ``prev`` that places the blocks ``blocks`` has more and plugs ``flag``."""
    assert isinstance(blocks, dict)
    cells = set(blocks) - set(prev.blocks)
    for move in prev.legal_moves():
        if set(getattr(move, "cells", ())) == cells:
            return Turn(move, flag)  # type: ignore[arg-type]
    raise AssertionError("no placement gives the position")


def test_a_deferred_flag_records_the_reading_and_is_kept_provisional() -> None:
    before, turn, after = _played()
    mover = before.to_move or ""
    texts = [str(turn)]
    waiting = judge(before, texts, after, True, None, [], 1, confirm=[mover])
    assert not waiting.recordable and waiting.provisional == ()  # not deferred: asked now, as before
    deferred = judge(before, texts, after, True, None, [], 1, confirm=[mover], deferred=[mover])
    assert deferred.recordable and deferred.provisional == (mover,) and deferred.unconfirmed == ()
    # every turn not known (--every any): asked now
    assert not judge(before, texts, after, True, None, [], None, confirm=[mover], deferred=[mover]).recordable
    # a reading NOT TRUSTED only because of the flag it put somewhere: recorded provisionally too
    unsettled = judge(before, texts, after, False, [mover], [], 1, deferred=[mover])
    assert unsettled.recordable and unsettled.provisional == (mover,)
    # answered by the player: not provisional
    said = judge(before, texts, after, True, None, [mover], 1, confirm=[mover], deferred=[mover])
    assert said.recordable and said.provisional == ()


def test_a_missing_flag_is_never_deferred() -> None:
    from vision.pipeline import Problem

    before, _turn, after = _played()
    mover = before.to_move or ""
    missing = Problem("flag-missing", "m", f"{mover} flag", "", "error")
    ambiguous = Problem("flag-ambiguous", "m", f"{mover} flag", "", "error")
    assert deferrable_flags([ambiguous], [mover], [], after) == [mover]
    assert deferrable_flags([missing], [mover], [], after) == []
    no_flag = State.from_json({**after.to_json(), "flags": [f for f in after.to_json()["flags"]
                                                           if f["color"] != mover]})
    assert deferrable_flags([ambiguous], [mover], [], no_flag) == []


def test_provisional_flags_are_the_last_readings_and_a_correction_rewrites_its_turn(tmp_path: Path) -> None:
    before, turn, after = _played()
    mover = before.to_move or ""
    game = _game(before, [turn], (mover,))
    assert game.provisional == {mover: after.flags[mover]}
    other = next(s for s in after.flag_spots(mover) if s != after.flags[mover])
    game.correct_flag(mover, other)
    assert game.state.flags[mover] == other and game.state.blocks == after.blocks
    assert GameRecord(before, game.record.turns).final().flags[mover] == other  # the turns stay legal
    with pytest.raises(BoardsideInputError, match="cannot stand at"):
        game.correct_flag(mover, FlagSpot.parse("9,9,9 +z"))
    not_provisional = next(c for c in before.colors if c != mover)
    with pytest.raises(FollowFileError, match="not provisional"):
        game.correct_flag(not_provisional, other)
    # saved and loaded: still provisional; a later reading (here the player's confirmation) settles it
    game.save(tmp_path / "g.json")
    loaded = FollowedGame.load(tmp_path / "g.json")
    assert loaded.provisional == {mover: other} and loaded.readings[-1].provisional == (mover,)
    loaded.note_confirmed({mover: "player"})
    assert loaded.provisional == {} and loaded.readings[-1].resolved == ((mover, "player"),)
    loaded.undo()  # taking the confirmation back makes it provisional again
    assert loaded.provisional == {mover: other}


def test_a_session_file_written_before_provisional_flags_loads(tmp_path: Path) -> None:
    before, turn, _after = _played()
    doc = GameRecord(before, [turn]).to_json()
    doc["follow"] = {"format": 1, "calibration": None, "mat": None, "every": "turn", "undone": [],
                     "readings": [{"turns": 0, "pictures": [], "trusted": True, "accepted": "state file",
                                   "problems": [], "at": "2026-11-20T10:00:00+00:00"},
                                  {"turns": 1, "pictures": ["px.jpg"], "trusted": True, "accepted": "trusted",
                                   "problems": [], "at": "2026-11-20T10:05:00+00:00"}]}
    (tmp_path / "old.json").write_text(json.dumps(doc))
    game = FollowedGame.load(tmp_path / "old.json")
    assert game.provisional == {} and [r.provisional for r in game.readings] == [(), ()]
    # written again, an entry without provisional flags looks as before
    assert game.to_json()["follow"]["readings"] == doc["follow"]["readings"]
    bad = json.loads(json.dumps(doc))
    bad["follow"]["readings"][1]["provisional"] = "pink"
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    with pytest.raises(FollowFileError, match="malformed"):
        FollowedGame.load(tmp_path / "bad.json")


# --- with pictures: scene_003, whose last two turns were played by two colours -------------------------

def _two_turns_back() -> tuple[State, Turn, str, State]:
    """scene_003 two turns back (P2), the turn from it (its colour ``m2`` does not play the last turn; its flag
    plugged where the truth has it) and the truth; the position after that turn is scene_003 one turn back."""
    truth = _truth("scene_003")
    p1 = one_turn_back(truth)
    assert p1 is not None
    p2 = one_turn_back(p1)
    assert p2 is not None and p2.to_move is not None and p2.to_move != p1.to_move
    m2 = p2.to_move
    turn = _turn_between(p2, dict(p1.blocks), truth.flags[m2])
    assert p2.apply(turn).blocks == p1.blocks
    return p2, turn, m2, truth


def _wrong_spot(p2: State, turn: Turn, color: str, truth: State) -> FlagSpot:
    """A legal spot for ``color``'s flag after ``turn`` in another cell than its true one."""
    assert turn.placement is not None
    mid = p2.apply(turn.placement)  # blocks placed, the flag not yet plugged
    spots = [s for s in mid.flag_spots(color) if s.cell != truth.flags[color].cell
             and s in truth.flag_spots(color)]
    assert spots
    return spots[0]


def _provisional_game(tmp_path: Path, flag: FlagSpot) -> tuple[Path, str, State]:
    p2, turn, m2, truth = _two_turns_back()
    cam = json.loads((FIXTURES / "scene_003" / "px.json").read_text())["camera"]
    truth_calibration(cam).save(tmp_path / "cam.json")
    game = _game(p2, [Turn(turn.placement, flag)], (m2,))
    game.calibration = str(tmp_path / "cam.json")
    path = tmp_path / "game.json"
    game.save(path)
    return path, m2, truth


def test_a_provisional_flag_the_next_pictures_contradict_is_asked_about_and_corrected(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p2, turn, m2, truth = _two_turns_back()
    wrong = _wrong_spot(p2, turn, m2, truth)
    path, m2, truth = _provisional_game(tmp_path, wrong)
    before = path.read_bytes()
    capsys.readouterr()
    assert main(["ctrl", "follow", "turn", str(path), *_pics("scene_003"), "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert not doc["recorded"] and doc["provisional_unsettled"] == [m2]
    assert path.read_bytes() == before  # nothing recorded, nothing confirmed
    assert main(["ctrl", "follow", "play", str(path), "pass noflag"]) == 2  # typed turns wait for it too
    assert "provisionally" in capsys.readouterr().err
    # the player says where it stands: the last reading's turn is corrected, the pictures read again
    assert main(["ctrl", "follow", "turn", str(path), *_pics("scene_003"), "--json",
                 "--flag", f"{m2}={_spot(truth.flags[m2])}"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["recorded"] and doc["provisional_resolved"][m2].startswith("corrected by the player")
    followed = FollowedGame.load(path)
    assert followed.state.blocks == truth.blocks and dict(followed.state.flags) == dict(truth.flags)
    assert followed.record.turns[0].flag == truth.flags[m2]  # the earlier position is right too
    assert dict(followed.readings[-1].resolved)[m2].startswith("corrected")


def test_a_provisional_flag_is_never_settled_at_a_wrong_spot_by_the_next_pictures() -> None:
    from calibration.camera import read_image
    from calibration.mat import MatSpec
    from vision.flag_recheck import recheck_flags
    from vision.pipeline import score_images

    p2, turn, m2, truth = _two_turns_back()
    cam = truth_calibration(json.loads((FIXTURES / "scene_003" / "px.json").read_text())["camera"])
    spec = MatSpec.from_json(json.loads((FIXTURES / "scene_003" / "scene.json").read_text())["mat"])
    pics = [(p, read_image(Path(p))) for p in _pics("scene_003")]
    right = p2.apply(Turn(turn.placement, truth.flags[m2]))
    res = score_images(pics, spec, cam, right, turns_played=1)
    assert recheck_flags(res, pics, [m2], right)[m2].verdict in ("settled", "unsure")
    wrong_spot = _wrong_spot(p2, turn, m2, truth)
    wrong = p2.apply(Turn(turn.placement, wrong_spot))
    res = score_images(pics, spec, cam, wrong, turns_played=1)
    check = recheck_flags(res, pics, [m2], wrong)[m2]
    assert check.verdict != "settled" and check.recorded == wrong_spot


def test_follow_show_and_confirm_list_and_settle_a_provisional_flag(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    _p2, _turn, m2, truth = _two_turns_back()
    path, m2, truth = _provisional_game(tmp_path, truth.flags[m2])
    capsys.readouterr()
    assert main(["ctrl", "follow", "show", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["provisional_flags"] == {m2: _spot(truth.flags[m2])}
    assert main(["ctrl", "follow", "show", str(path)]) == 0
    assert "provisional:" in capsys.readouterr().out
    assert main(["ctrl", "follow", "confirm", str(path)]) == 1  # not a terminal, no --flag: nothing done
    other = next(c for c in truth.colors if c != m2)
    assert main(["ctrl", "follow", "confirm", str(path), "--flag", f"{other}={_spot(truth.flags[m2])}"]) == 2
    monkeypatch.setattr("sys.stdin", _Terminal("y\n"))
    assert main(["ctrl", "follow", "confirm", str(path)]) == 0
    assert "confirmed" in capsys.readouterr().out
    followed = FollowedGame.load(path)
    assert followed.provisional == {} and followed.readings[-1].resolved == ((m2, "player"),)
    assert main(["ctrl", "follow", "confirm", str(path)]) == 0  # nothing left to confirm


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _started(tmp_path: Path, scene: str) -> Path:
    """A followed game (pictures after every turn) whose recorded position is the scene's one turn back."""
    prev = one_turn_back(_truth(scene))
    assert prev is not None
    (tmp_path / "prev.json").write_text(json.dumps(prev.to_json()))
    truth_calibration(json.loads((FIXTURES / scene / "px.json").read_text())["camera"]).save(tmp_path / "cam.json")
    game = tmp_path / "game.json"
    assert main(["ctrl", "follow", "start", str(game), "--state", str(tmp_path / "prev.json"),
                 "-c", str(tmp_path / "cam.json")]) == 0
    return game


@pytest.mark.parametrize(("scene", "color", "trusted"), [("scene_021", "blue", True), ("scene_008", "pink", False)])
def test_an_unsure_flag_is_recorded_provisionally_unless_asked_now(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], scene: str, color: str, trusted: bool) -> None:
    # scene_021 one turn back: trusted, but the blue flag (the mover's) was not made out for sure; scene_008:
    # NOT TRUSTED only because the pink flag is flag-ambiguous.  Neither game is over, and another colour
    # plays next: the flag is recorded provisionally
    game = _started(tmp_path, scene)
    before = game.read_bytes()
    capsys.readouterr()
    assert main(["ctrl", "follow", "turn", str(game), *_pics(scene), "--json", "--ask-now"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert not doc["recorded"] and doc["trusted"] == trusted and game.read_bytes() == before  # as before
    assert main(["ctrl", "follow", "turn", str(game), *_pics(scene)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert f"provisional: the {color} flag is recorded at" in out and "recorded 1 turn(s)" in out
    followed = FollowedGame.load(game)
    truth = _truth(scene)
    assert followed.state.blocks == truth.blocks and followed.provisional == {color: followed.state.flags[color]}
    assert followed.readings[-1].provisional == (color,)
    assert followed.readings[-1].accepted == ("trusted, " if trusted else "") + "flags recorded provisionally"
    assert main(["ctrl", "follow", "undo", str(game)]) == 0
    capsys.readouterr()
    assert main(["ctrl", "follow", "turn", str(game), *_pics(scene), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["recorded"] and list(doc["flags_provisional"]) == [color]


def test_a_partial_confirmation_keeps_the_other_flag_provisional_and_it_can_still_be_corrected() -> None:
    rng = random.Random(3)
    state = new_state(3)
    turns: list[Turn] = []
    while len(turns) < 2:  # two colours play, each plugging a flag with another legal spot left
        turn, after = random_turn(state, rng)
        if turn.placement is None or turn.flag is None or len(after.flag_spots(state.to_move)) < 2:
            continue
        turns.append(turn)
        state = after
    first = new_state(3).to_move or ""
    second = new_state(3).apply(turns[0]).to_move or ""
    game = _game(new_state(3), turns, (first, second))
    game.note_confirmed({second: "player"})
    assert game.provisional == {first: state.flags[first]}  # the other one stays provisional
    other = next(s for s in spots_after(game, first) if s != state.flags[first])
    game.correct_flag(first, other)  # its turn is in the reading before the confirmation
    assert game.state.flags[first] == other and game.record.turns[0].flag == other
    assert game.record.turns[1] == turns[1]
    assert GameRecord(new_state(3), game.record.turns).final().flags[first] == other


def spots_after(game: FollowedGame, color: str) -> list[FlagSpot]:
    """``color``'s legal flag spots where its last recorded turn plugged it (that turn's placement made)."""
    states = list(game.record.states())
    i = max(k for k, st in enumerate(states[:-1]) if st.to_move == color)
    placement = game.record.turns[i].placement
    assert placement is not None
    later = game.state
    return [s for s in states[i].apply(placement).flag_spots(color) if s in later.flag_spots(color)]
