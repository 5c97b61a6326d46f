"""CTRL engine benchmark (issue "Foundation and the complete CTRL rules engine").

Figures: median time of legal placement generation over mid-game positions (target <= 1 ms) and
full random 4-player games per second on one core (target >= 50).  Last line: one JSON object.

Run: python benchmarks/ctrl_engine.py [--positions 200] [--games 60]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.ctrl import State, new_state


def mid_game_positions(n: int, seed: int) -> list[State]:
    rng = random.Random(seed)
    out: list[State] = []
    while len(out) < n:
        s = new_state(4)
        target = rng.randrange(4, 24)  # turns into the game: between the opening and the end
        for _ in range(target):
            if s.is_terminal():
                break
            s = s.apply(rng.choice(list(s.legal_moves())))
            s = s.apply(rng.choice(list(s.legal_moves())))
        if not s.is_terminal():
            out.append(s)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--positions", type=int, default=200)
    ap.add_argument("--games", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    positions = mid_game_positions(args.positions, args.seed)
    times = []
    counts = []
    for s in positions:
        fresh = State.from_json(s.to_json())  # no cached results
        t0 = time.perf_counter()
        sets = fresh.placement_sets()
        times.append(time.perf_counter() - t0)
        counts.append(len(sets))
    median_ms = statistics.median(times) * 1000

    rng = random.Random(args.seed)
    t0 = time.perf_counter()
    c0 = time.process_time()
    turns = 0
    for _ in range(args.games):
        s = new_state(4)
        while not s.is_terminal():
            s = s.apply(rng.choice(list(s.legal_moves())))
            turns += 1
    elapsed = time.perf_counter() - t0
    cpu = time.process_time() - c0
    figures = {
        "positions": len(positions),
        "placements_mean": round(statistics.mean(counts), 1),
        "placement_gen_median_ms": round(median_ms, 4),
        "placement_gen_p90_ms": round(sorted(times)[int(0.9 * len(times))] * 1000, 4),
        "games": args.games,
        "games_per_s": round(args.games / elapsed, 2),
        # CPU time of this single-threaded process: "on one core" even when the machine is shared
        "games_per_cpu_s": round(args.games / cpu, 2),
        "half_moves_per_s": round(turns / elapsed, 1),
        "target_median_ms": 1.0,
        "target_games_per_s": 50,
        "meets_targets": median_ms <= 1.0 and args.games / cpu >= 50,
    }
    print(f"placement generation: median {median_ms:.3f} ms over {len(positions)} mid-game positions")
    print(f"random 4-player games: {figures['games_per_s']} games/s wall, {figures['games_per_cpu_s']} per CPU second")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
