"""Quirky Circuits command cards.

A card is a small frozen value with a ``parse()`` / ``str`` round trip (``Card.parse("F2")``,
``Card.parse("MT:cat>robot")``).  The rulebook lists the blue basic command cards only by
their effect on the robot ("mover o girar", Forward 2 in the Twirl clarification, Move Token
in "Mover objetivos de ficha"); the codes and the basic deck are this project's
interpretation, written down in docs/rules/quirky.md ("Cards").
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from engine.core import InvalidMoveError

#: every card code with a human description (docs/rules/quirky.md, "Cards")
CARD_CODES: dict[str, str] = {
    "F1": "Forward 1",
    "F2": "Forward 2",
    "F3": "Forward 3",
    "B1": "Backward 1",
    "RL": "Rotate Left",
    "RR": "Rotate Right",
    "U": "U-turn",
    "J2": "Jump 2",
    "J3": "Jump 3",
    "MN": "Move North",
    "RN": "Rotate North",
    "MT": "Move Token",
    "PK": "Pick Up",
    "DR": "Drop",
    "SW": "Swap Hands",
}

#: cards whose back shows "moves" (the rest show "turns" or "acts"): rulebook "Comunicado"
MOVE_CODES = frozenset({"F1", "F2", "F3", "B1", "J2", "J3", "MN"})
TURN_CODES = frozenset({"RL", "RR", "U", "RN"})

_NAME = r"[A-Za-z][A-Za-z0-9_\-]*"
_RE = re.compile(rf"^\s*([A-Za-z][A-Za-z0-9]?)(?::({_NAME})>({_NAME}))?\s*$")


@dataclass(frozen=True, order=True)
class Card:
    """One command card: ``code`` from :data:`CARD_CODES`; Move Token names ``token`` and ``target``."""

    code: str
    token: str = ""
    target: str = ""

    def __post_init__(self) -> None:
        if self.code not in CARD_CODES:
            codes = " ".join(CARD_CODES)
            raise InvalidMoveError(f"unknown card {self.code!r} (expected one of {codes})")
        if (self.code == "MT") != bool(self.token and self.target):
            if self.code == "MT":
                raise InvalidMoveError(
                    f"Move Token card needs a token and a target, e.g. 'MT:cat>robot', got {str(self)!r}"
                )
            raise InvalidMoveError(
                f"only Move Token cards name a token: {self.code}:{self.token}>{self.target!r}"
            )

    @classmethod
    def parse(cls, text: str) -> Card:
        m = _RE.match(text)
        if not m:
            raise InvalidMoveError(
                f"invalid card {text!r} (expected a code such as 'F2', 'RL' or 'MT:cat>robot')"
            )
        return cls(m.group(1).upper(), m.group(2) or "", m.group(3) or "")

    def __str__(self) -> str:
        return f"{self.code}:{self.token}>{self.target}" if self.code == "MT" else self.code

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"

    @property
    def name(self) -> str:
        if self.code == "MT":
            return f"Move Token {self.token} toward {self.target}"
        return CARD_CODES[self.code]

    @property
    def back(self) -> str:
        """What the card's back shows (rulebook, "Comunicado"): ``move``, ``turn`` or ``act``."""
        if self.code in MOVE_CODES:
            return "move"
        if self.code in TURN_CODES:
            return "turn"
        return "act"


def parse_program(text: str) -> list[Card]:
    """Parse a space- or comma-separated program such as ``"F2 RL F1 U B1"``."""
    parts = [p for p in re.split(r"[\s,]+", text.strip()) if p]
    if not parts:
        raise InvalidMoveError(f"empty program {text!r} (expected cards such as 'F2 RL F1 U B1')")
    return [Card.parse(p) for p in parts]


_CHOICE = re.compile(rf"^(.*)\[({_NAME})\]$")


def parse_queue(text: str) -> tuple[list[Card], dict[int, str]]:
    """Parse a program whose Pick Up cards may name their token, e.g. ``"RR F3 PK[cup] F1"`` (the
    solver prints plans this way); returns the cards and ``{card index: token}``."""
    parts = [p for p in re.split(r"[\s,]+", text.strip()) if p]
    if not parts:
        raise InvalidMoveError(f"empty program {text!r} (expected cards such as 'F2 RL F1 U B1')")
    cards: list[Card] = []
    choices: dict[int, str] = {}
    for i, part in enumerate(parts):
        m = _CHOICE.match(part)
        if m:
            card = Card.parse(m.group(1))
            if card.code != "PK":
                raise InvalidMoveError(f"only Pick Up cards name a token in brackets, got {part!r}")
            choices[i] = m.group(2)
        else:
            card = Card.parse(part)
        cards.append(card)
    return cards, choices


#: the basic (blue) command deck of every robot -- interpretation, docs/rules/quirky.md "Basic deck"
BASIC_DECK: dict[str, int] = {"F1": 5, "F2": 3, "F3": 2, "B1": 2, "RL": 3, "RR": 3, "U": 2}


def basic_deck() -> Counter[Card]:
    return Counter({Card(code): n for code, n in BASIC_DECK.items()})
