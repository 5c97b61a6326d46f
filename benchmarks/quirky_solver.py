"""Quirky Circuits: solver time per shipped scenario, card resolution and self-play throughput.

Last printed line: one JSON object of figures.
"""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.core import random_playout
from engine.quirky import Card, Table, builtin_scenarios, new_state, resolve_program
from engine.quirky.solver import solve


def main() -> None:
    figures: dict[str, object] = {}
    solver: dict[str, dict[str, object]] = {}
    total = 0.0
    for scn in builtin_scenarios():
        t = time.perf_counter()
        sol = solve(scn, players=3)
        dt = time.perf_counter() - t
        total += dt
        solver[scn.id] = {
            "seconds": round(dt, 3),
            "rounds": sol.rounds,
            "cards": sum(len(r) for r in sol.plan),
            "states": sol.states,
            "verified": sol.verified,
            "optimal": sol.optimal,
        }
        print(f"{scn.id:18s} {dt:6.2f} s  rounds={sol.rounds} states={sol.states} verified={sol.verified}")
    figures["solver"] = solver
    figures["solver_total_seconds"] = round(total, 3)
    figures["solver_max_seconds"] = max(float(str(v["seconds"])) for v in solver.values())

    rng = random.Random(1)
    codes = ["F1", "F2", "F3", "B1", "RL", "RR", "U"]
    scns = builtin_scenarios()
    n_cards = 0
    t = time.perf_counter()
    for i in range(2000):
        scn = scns[i % len(scns)]
        prog = [Card(rng.choice(codes)) for _ in range(8)]
        n_cards += resolve_program(scn, Table.initial(scn), prog).resolved
    dt = time.perf_counter() - t
    figures["cards_resolved_per_second"] = round(n_cards / dt)

    t = time.perf_counter()
    games = 0
    for i in range(40):
        random_playout(new_state(scns[i % len(scns)], 3), rng)
        games += 1
    figures["selfplay_games_per_second"] = round(games / (time.perf_counter() - t), 1)
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
