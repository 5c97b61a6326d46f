"""Quirky Circuits (rulebook ``shared/seeds/004``): cards, robots' quirks, scenarios, rounds and a solver.

Rules and interpretations: docs/rules/quirky.md.
"""

from engine.quirky.cards import BASIC_DECK, CARD_CODES, Card, basic_deck, parse_program, parse_queue
from engine.quirky.game import (
    Go,
    Play,
    QuirkyMove,
    QuirkyState,
    Take,
    new_state,
    parse_move,
    shuffled,
    validate_state,
)
from engine.quirky.rules import (
    CardTrace,
    ExecutionResult,
    NeedsChoice,
    Table,
    TokenState,
    objective_met,
    resolve_card,
    resolve_program,
    table_outcome,
)
from engine.quirky.scenario import (
    ROBOTS,
    Board,
    Objective,
    Scenario,
    ScenarioError,
    TokenSpec,
    builtin_ids,
    builtin_scenario,
    builtin_scenarios,
    builtin_text,
    parse_scenario,
)

State = QuirkyState

__all__ = [
    "BASIC_DECK",
    "CARD_CODES",
    "ROBOTS",
    "Board",
    "Card",
    "CardTrace",
    "ExecutionResult",
    "Go",
    "NeedsChoice",
    "Objective",
    "Play",
    "QuirkyMove",
    "QuirkyState",
    "Scenario",
    "ScenarioError",
    "State",
    "Table",
    "Take",
    "TokenSpec",
    "TokenState",
    "basic_deck",
    "builtin_ids",
    "builtin_scenario",
    "builtin_scenarios",
    "builtin_text",
    "new_state",
    "objective_met",
    "parse_move",
    "parse_program",
    "parse_queue",
    "parse_scenario",
    "resolve_card",
    "resolve_program",
    "shuffled",
    "table_outcome",
    "validate_state",
]
