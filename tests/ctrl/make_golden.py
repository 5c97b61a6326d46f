"""Regenerate tests/ctrl/golden/positions.json (run: python -m tests.ctrl.make_golden).

The expected move counts and scores are what this engine computed when the file was written;
entries with ``"hand_checked": true`` were worked out by hand (see test_paths / test_scoring).
The file guards against regressions, like python-chess's perft files.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from engine.ctrl import FlagSpot, Placement, State, Turn, new_state


def _positions() -> list[tuple[str, State, bool]]:
    out: list[tuple[str, State, bool]] = [
        ("setup-4p", new_state(4), True),
        ("setup-3p", new_state(3), False),
        ("setup-2p", new_state(2, scoring={"player1": "yellow", "player2": "pink"}), False),
    ]
    for players, seed, turns in [(4, 1, 5), (4, 2, 13), (4, 3, 21), (3, 4, 10), (2, 5, 17), (4, 6, 40), (3, 7, 99)]:
        rng = random.Random(seed)
        sc = {"player1": "blue", "player2": "green"} if players == 2 else None
        s = new_state(players, scoring=sc)
        for _ in range(turns):
            if s.is_terminal():
                break
            a = rng.choice(list(s.legal_moves()))
            mid = s.apply(a)
            s = mid.apply(rng.choice(list(mid.legal_moves())))
        out.append((f"random-{players}p-seed{seed}-t{turns}", s, False))
    return out


def main() -> None:
    entries = []
    for name, s, hand in _positions():
        entries.append({
            "name": name,
            "hand_checked": hand,
            "state": s.to_json(),
            "placements": len(s.placements()) if not s.is_terminal() else 0,
            "flag_spots_after_first": (len(s.apply(s.legal_moves()[0]).legal_moves())
                                       if not s.is_terminal() else 0),
            "sides": s.side_scores(),
            "totals": s.totals(),
            "winners": s.winners(),
        })
    path = Path(__file__).parent / "golden" / "positions.json"
    path.write_text(json.dumps({"about": __doc__.strip().splitlines()[0], "positions": entries}, indent=1) + "\n")
    print(f"wrote {len(entries)} positions to {path}")


__all__ = ["FlagSpot", "Placement", "Turn", "main"]

if __name__ == "__main__":
    main()
