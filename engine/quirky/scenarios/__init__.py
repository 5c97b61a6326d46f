"""The shipped scenarios, as TOML text embedded in Python modules.

The engine does no file I/O (tests/test_architecture.py), so each scenario is a module whose
``TEXT`` is exactly the TOML a user would write in a file (``boardside quirky show ID --toml``
prints it).  Add a scenario by adding a module here and listing it in ``TEXTS``.
"""

from __future__ import annotations

from engine.quirky.scenarios import (
    ballroom,
    double_delivery,
    dust_bunnies,
    fetch,
    first_dance,
    kitchen_crumbs,
    plank_walk,
    tea_party,
)

#: scenario id -> TOML text
TEXTS: dict[str, str] = {
    "ballroom": ballroom.TEXT,
    "double-delivery": double_delivery.TEXT,
    "dust-bunnies": dust_bunnies.TEXT,
    "fetch": fetch.TEXT,
    "first-dance": first_dance.TEXT,
    "kitchen-crumbs": kitchen_crumbs.TEXT,
    "plank-walk": plank_walk.TEXT,
    "tea-party": tea_party.TEXT,
}
