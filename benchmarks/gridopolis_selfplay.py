"""Benchmark: Gridopolis random self-play and move generation speed.

Usage: python benchmarks/gridopolis_selfplay.py [--games N] [--seed S]
The last printed line is one JSON object of figures.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.gridopolis import new_state, validate_state


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    figures: dict[str, object] = {"benchmark": "gridopolis_selfplay", "games": args.games, "seed": args.seed}
    for players in (2, 4):
        rng = random.Random(args.seed)
        moves = 0
        legal_total = 0
        ends: dict[str, int] = {}
        t0 = time.perf_counter()
        for _ in range(args.games):
            s = new_state(players)
            while not s.is_terminal():
                legal = s.legal_moves()
                legal_total += len(legal)
                s = s.apply(rng.choice(list(legal)))
                moves += 1
            ending = s.ending() or "?"
            ends[ending] = ends.get(ending, 0) + 1
        dt = time.perf_counter() - t0
        figures[f"p{players}_moves"] = moves
        figures[f"p{players}_moves_per_game"] = round(moves / args.games, 1)
        figures[f"p{players}_mean_legal_moves"] = round(legal_total / max(moves, 1), 1)
        figures[f"p{players}_games_per_s"] = round(args.games / dt, 2)
        figures[f"p{players}_moves_per_s"] = round(moves / dt, 1)
        figures[f"p{players}_endings"] = ends
        print(f"{players} players: {moves} moves in {dt:.2f} s ({moves / dt:.0f} moves/s)")
    doc = new_state(4).to_json()
    n = 200
    t0 = time.perf_counter()
    for _ in range(n):
        validate_state(doc)
    figures["validate_ms"] = round((time.perf_counter() - t0) / n * 1000, 3)
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
