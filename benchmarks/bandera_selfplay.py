"""Benchmark: Captura la Bandera move generation and random self-play.

Plays uniformly random games (fair dice) for 2, 3 and 4 players, stopped at ``--max-turns``,
and times ``legal_moves()`` + ``apply()``.  The last printed line is one JSON object of figures.

    python benchmarks/bandera_selfplay.py [--games 4] [--max-turns 300] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.bandera import new_state


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=4, help="games per player count")
    ap.add_argument("--max-turns", type=int, default=300)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    figures: dict[str, object] = {
        "benchmark": "bandera_selfplay",
        "games_per_count": args.games,
        "max_turns": args.max_turns,
        "seed": args.seed,
    }
    total_decisions = 0
    total_seconds = 0.0
    for players in (2, 3, 4):
        rng = random.Random(args.seed + players)
        decisions = chances = turns = captures = finished = 0
        legal_sizes = 0
        gen_time = 0.0
        started = time.perf_counter()
        for _ in range(args.games):
            s = new_state(players, max_turns=args.max_turns)
            while not s.is_terminal():
                if s.is_chance_node():
                    s = s.apply(s.sample_chance(rng))
                    chances += 1
                    continue
                t0 = time.perf_counter()
                legal = s.legal_moves()
                gen_time += time.perf_counter() - t0
                legal_sizes += len(legal)
                s = s.apply(rng.choice(legal))
                decisions += 1
            turns += s.turn
            captures += len(s.captures)
            finished += 0 if s.stopped else 1
        elapsed = time.perf_counter() - started
        total_decisions += decisions
        total_seconds += elapsed
        figures[f"p{players}"] = {
            "games": args.games,
            "finished_by_capture": finished,
            "captures": captures,
            "turns": turns,
            "decisions": decisions,
            "chance_events": chances,
            "mean_legal_moves": round(legal_sizes / max(decisions, 1), 2),
            "legal_moves_us": round(1e6 * gen_time / max(decisions, 1), 1),
            "seconds": round(elapsed, 3),
            "games_per_second": round(args.games / elapsed, 3),
            "decisions_per_second": round(decisions / elapsed, 1),
        }
        print(f"{players} players: {decisions} decisions in {elapsed:.2f} s", file=sys.stderr)
    figures["decisions_per_second"] = round(total_decisions / total_seconds, 1)
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
