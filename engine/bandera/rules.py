"""Rulebook references for Captura la Bandera (``../shared/seeds/003_76a975bad01ed1c0.txt``).

Every rule the engine applies names one of these passages; ``docs/rules/bandera.md`` quotes
them with a translation and lists the interpretations where a figure is missing.
"""

from __future__ import annotations

BOOK = "Captura la Bandera"

COMPONENTS = f'{BOOK}, "Componentes" (cube counts per level)'
OBJECTIVE = f'{BOOK}, "Objetivo" (characters only over cubes; winning)'
SETUP = f'{BOOK}, "Preparación para iniciar la partida" (royal towers, figs. 2-4)'
TURNS = f'{BOOK}, "Modo de juego" (levels, first player, two rolls per turn)'
PLACE_WHERE = f'{BOOK}, "Primer lanzamiento del dado: Donde y como colocar los cubos"'
PLACE_ZONE_A = f"{PLACE_WHERE} 3 (zone A)"
PLACE_TWO = f"{PLACE_WHERE} 4 (two players: zones B and C)"
PLACE_MANY = f"{PLACE_WHERE} 5 (more players: zones B and C, first cube, fig. 10)"
PLACE_ON_TOP = f"{PLACE_WHERE} 2 and 6 (a cube on top of another)"
PLACE_TABLE = f'{BOOK}, "Puntuaciones para colocar los cubos" (1-3 none, 4 one, 5 one or on top, 6 two)'
PLACE_NEVER_ON = f'{BOOK}, "Puntuación de 5": never on a royal tower, a character, or a third level'
MOVE = f'{BOOK}, "Segundo lanzamiento del dado: Cómo mover las piezas"'
MOVE_COSTS = f'{BOOK}, "Resumen de puntuaciones de los dados: Coste para mover las piezas"'
MOVE_NOT = f'{BOOK}, "Algunos recordatorios": "Puedes mover cualquier cubo menos ..."'
MOVE_ZONE_A = f"{MOVE} (not through the central squares, fig. 12)"
MOVE_NOT_ON_CUBE = f"{MOVE} (never onto another cube, figs. 13 and 14)"
TOWER = f"{MOVE} (a two-cube tower costs 3, fig. 16)"
LOWER = f"{MOVE} (lowering a tower's top cube costs 5, fig. 17)"
CHAR = f"{MOVE} (the character moves only over cubes, 1 point; climbing a tower 3, fig. 18)"
ROYAL = f'{BOOK}, "Movimientos de la torre real" (1 point, only left-right on paved squares, figs. 20-21)'
ROYAL_CLIMB = (
    f'{BOOK}, "Movimientos de la torre real": climbing a royal tower needs 4-6 in one roll (figs. 22-23)'
)
CAPTURE = f'{BOOK}, "Movimientos de la torre real": "Para capturar la bandera ..."'
FLAGS = f'{BOOK}, "Banderas (para más de dos jugadores)" (scores, tie-break, end)'
SUPPLY_OUT = f'{BOOK}, "Importante" (no placement roll once every cube is in play)'
