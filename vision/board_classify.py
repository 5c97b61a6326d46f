"""Board classify stage: what stands on each cell (or Gridopolis pad) of a located board, and its colour.

Method (docs/boards_vision.md):

1. **Probes.**  Above every site (a cell's centre on the board, or a pad's top) a small grid of
   vertical lines is sampled at several heights: 3D probe points in board mm.
2. **Observation.**  Each probe is projected into the picture (lens distortion included).  Its ray
   runs on to the board plane, where the printed board's colour is known (``render_board``).  After
   a white balance taken from the board's own paper, a probe whose colour differs in chromaticity
   from the print behind it, or is much brighter than it, shows *something standing there*
   ("piece-ness" 0..1).  This is why piece height matters: a probe point ``z`` mm up sees a piece
   only if the piece reaches that high.
3. **Hypotheses.**  Each possible content of a site (``vision.board_pieces``: empty, cube, tower,
   royal tower, character, token, pawn, king) is a few solids.  For each, the probes its solids
   would hide are predicted by intersecting the probe rays with them; the hypothesis whose
   prediction best matches the observed piece-ness wins.  Probes whose ray meets a piece of
   *another* site (in front or behind) say nothing about this site and are left out; this is
   iterated once the first assignment is known.
4. **Colour.**  The owner / token colour is the median hue of the probes inside the winning
   hypothesis' coloured solid that the camera sees directly.
5. **Occluded.**  A site where probes above the tallest piece still see "something" is covered (a
   hand, an arm) and is reported as ``occluded`` instead of being guessed.

Confidence per site: how much better the winner explains the probes than the runner-up, scaled by
the share of the site's probes that could be used.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from typing import Any, cast

import cv2
import numpy as np
import numpy.typing as npt

from calibration.boards import BoardSpec, render_board
from calibration.colour import lab_to_linear, linear_to_lab, srgb8_codes_to_linear, srgb8_to_linear
from vision.board_lamp import GridLamp, fit_grid_lamp, lit_share
from vision.board_locate import BoardPose
from vision.board_pieces import Hypothesis, PieceGeometry, hypotheses_for
from vision.board_rays import GroundShade, box_corners, box_ray_hits, hits, segments_to_board

__all__ = ["DECLINED_KINDS", "CellReading", "ClassifyBoardConfig", "Site", "cell_where", "classify_sites",
           "config_for", "flat_sites"]

F64 = npt.NDArray[np.float64]
U8 = npt.NDArray[np.uint8]

#: hue prototypes (CIELAB hue angle, degrees) of the pieces' plastics
HUES: dict[str, float] = {"red": 35.0, "orange": 60.0, "yellow": 90.0, "green": 150.0, "blue": 265.0,
                          "purple": 315.0, "pink": 0.0, "brown": 65.0}


@dataclass(frozen=True)
class ClassifyBoardConfig:
    """Thresholds of the classify stage (one place; never per scene)."""

    line_reach: float = 0.8  # probe lines off the centre, x the widest solid's half-size
    height_step_mm: float = 4.0
    reprobe_grid: int = 0  # (> 0: on) Gridopolis (session 10): a site with at most one of its probes usable
    # (never read: ``sure_min_weight``; most of it hidden by an upper pad) is probed again on a finer grid (this many
    # lines a side, heights at half the step), and its probes are replaced by the usable ones of those, spread evenly
    # (the slit under the next level where it is seen); at least ``reprobe_min`` of them usable, else it keeps its own
    reprobe_min: int = 10
    slit_shade_shift: float = 0.0  # Gridopolis (> 0: on; session 16): a site declined below the next level is read
    # from its own pad top: where a pawn there would be seen it must be darker by ``slit_shade_dark`` (L*) than the
    # rest of the seen top and its a*b* shifted by this much towards a player's colour (:func:`_read_by_slit_shade`)
    slit_shade_dark: float = 5.0
    slit_shade_points: int = 4  # ... pad-top points (3 mm apart) seen each where a pawn would be and where no piece
    slit_shade_box_points: int = 3  # ... and where only a box would be seen (its shape)
    slit_shade_box_shift: float = 10.0  # ... a box where those are shifted this much and darker by ...
    slit_shade_box_dark: float = 12.0  # ... this (a marker where both are under half of it, else not read)
    slit_shade_not: tuple[str, ...] = ("blue",)  # ... never these colours (the shade under pads is bluish)
    slit_lamp: bool = False  # Gridopolis (session 17): the pad-top points of ``slit_shade_*`` compared as they would
    # look fully lit, by a lamp fitted to the picture's pad tops (:mod:`vision.board_lamp`; none fitted: as off)
    slit_lamp_spread: float = 0.0  # ... the lamp's soft edge (degrees round its direction; 0: a point lamp)
    slit_lamp_correct: bool = True  # ... dividing each point's colour by the light the lamp predicts there
    slit_lamp_gate: float = 0.0  # ... (> 0) and a site read only where the lamp's mean share over the points a pawn
    # would hide and over the rest differ by at most this (darkness the lamp explains is no piece)
    slit_lamp_not: tuple[str, ...] = ("blue",)  # ... with a lamp fitted, never these colours (for ``slit_shade_not``)
    slit_shade_markers: bool = False  # ... and a marker where those are not (off: the posts a pad above stands on and
    # unread neighbours also leave that band plain; development: 1 box of 4 so read a pawn)
    reprobe_margin: float = 0.5  # ... and read only when a piece beats "empty" by this much (never read empty)
    reprobe_shape: float = 0.3  # ... and a box and a marker differ by this much (but on a kingerizer)
    part_counts: bool = False  # Gridopolis (session 19): a piece of a player's colour whose shape the picture does
    # not tell -- the probes' box and marker scores within ``part_counts_tie`` and its outline not plainly a box's,
    # or declined for its shape alone (on few probes, or seen through a slit; no hand in the picture: skin seen on a
    # few probes passes for plastic) -- is made a blocker box / a marker
    # where the rules' counts force it (docs/rules/gridopolis.md: each player has 3 markers and 2 blocker boxes;
    # :func:`_shape_by_counts`)
    part_counts_tie: float = 0.045
    dab_lo: float = 4.0  # CIELAB a*b* difference from the print: below = board
    dab_hi: float = 9.0  # above = something standing there
    brighter_lo: float = 18.0  # L* above the print's by this much: something (a white piece on ink)
    brighter_hi: float = 35.0
    print_slack_mm: float = 1.5  # the print is compared also this far off each way (pose error)
    shade_gain_max: float = 2.5  # shading undone up to this factor before comparing colours
    black_lightness: float = 45.0  # L* below this where the print is light: a black piece, not a shadow
    min_lightness: float = 0.0  # probes seeing darker than this (L*, shading undone) are not usable: nothing
    # can be told there (a dark object in front of the lens, the unlit part of a picture)
    dark_expected_min: float = 60.0
    flag_min_share: float = 0.01  # share of the flag probes that must see a player's colour
    flag_min_probes: int = 4
    flag_rings: int = 8  # flag probes: rings round the tower's top ...
    flag_rays: int = 16  # ... and probes per ring (a banner is 14 mm: a coarse grid misses it)
    character_min_share: float = 0.08  # share of the probes over a stack that must see a player's colour
    character_reach: float = 0.8  # probes for a character cover this share of the top face (half-size)
    character_hue_deg: float = 35.0  # a character's hue differs from its cube's by more than this ...
    character_near_deg: float = 180.0  # ... or by more than this when a player's hue is nearer by
    character_nearer_deg: float = 10.0  # this much (a red character on an orange or wood cube)
    character_room: float = 2.0  # mm round where a character was seen that its body may take
    character_face_deg: float = 0.0  # Bandera (> 0: on): a "character" whose colour is within this hue of the
    # stack's top face, seen at the face's corners a character cannot hide, is that face (0: off)
    character_banner_deg: float = 0.0  # Bandera (> 0: on): on the paved columns the top cube's colour is read
    # without its face probes showing a player's plastic (chroma over ``player_chroma``, hue within this of a
    # player's): a royal tower's banner or pole in front of the face, of its character's colour (0: off)
    flag_character_blocks: bool = True  # a flag probe whose ray meets the tower's own character says nothing
    # (Bandera: False -- its banner is as often in front of the character, in the same colour)
    flag_columns: tuple[int, ...] = ()  # Bandera: flags only on towers in these columns (the paved ones)
    flag_on_single: bool = False  # Bandera: a stack read as one cube on those columns is looked at for a flag
    # too (only a royal tower, two cubes, has one); found there, it is a royal tower ...
    flag_single_margin: float = float("inf")  # ... (two cubes explaining its probes within this of one cube)
    flag_single_unique: bool = False  # ... if no two-cube tower shows a flag of that colour (one per player)
    flag_single_unique_pairs: bool = False  # ... nor another such single cube
    flag_single_character: bool = False  # ... and a character of that colour is read on the board
    character_by_flag: bool = False  # Bandera: a player whose flag is found but whose character is seen nowhere has
    # it on its royal tower (a note says so)
    flag_rails: bool = False  # Bandera: a flag's colour is one whose royal tower may stand on that square
    character_on_royal: bool = False  # Bandera: a single cube found to carry a flag is looked at again for its
    # character, on a royal tower's top
    royal_per_player: bool = False  # Bandera: every player in the game (the colours seen, and the seats before
    # theirs) has a royal tower on its paved squares: one with no flag found has it on the only stack there that may
    # be two cubes (a note says so); a flag on a square its royal tower cannot reach with that many players is none
    flag_by_character: int = 0  # Bandera (> 0): a player with a character on the board but no flag found has
    # it on the stack of its rail showing its colour on this many flag probes or more (a note says so)
    token_hue_deg: float = 28.0  # hue tolerance of a token's printed colour
    token_light_tol: float = 22.0  # lightness tolerance (L*) of a token's printed colour
    token_min_share: float = 0.1  # share of a cell's token probes showing that colour
    token_dark_l: float = 55.0  # a grey token's printed dark centre: a probe below this L* (and 30 below the print)
    #: the dark centre is a small dot inside the token: a patch of dark probes larger than this, or
    #: reaching the edge of the cell's probe grid, is a shadow, a finger or a tag, not the dot (0: off)
    token_dot_max_probes: int = 6
    token_dot_pale: float = 0.0  # Quirky (> 0: on): a token kind printed with less chroma than this (fossil) must show
    # its printed dark dot as a grey one does (warm light on the paper takes its colour)
    token_dot_owner: float = 0.0  # Quirky (> 0: on): a grey token's dot whose ring of probes shows another token kind
    # found in the cell on this share is that token's printed centre, not a grey token's dot
    token_dot_local: float = 0.0  # Quirky (> 0: on): a probe this much (L*) darker than the mean of its eight
    # neighbours (and 20 below the print, grey) is a dot too: blur lifts a small dark dot's lightness, not its
    # being darker than the light ring round it (a shadow on the paper is smooth)
    #: Quirky (> 0: on): a cell a hand partly covers is read from the token probes seen past the hand
    #: when at least this share of them is, and a token is found there (none found: still "occluded")
    token_past_hand: float = 0.0
    #: ... and there a token kind is found on this many probes seen past the hand (its share of them
    #: need not reach ``token_min_share``: most of the token may be under the hand)
    token_past_hand_probes: int = 4
    #: Quirky (> 0: on, session 15): a second token kind found on a cell is dropped when more than this share
    #: of its probes match a kind found with a larger share too (two tokens on a cell lie side by side)
    token_own_probes: float = 0.0
    piece_past_hand: float = 0.0  # Gridopolis (> 0: on; session 11): a site a hand partly covers is read on its
    # probes seen clear of the hand when at least this share of its probes is, and they show a piece beating "empty"
    # by ``sure_margin``; else it stays "occluded"
    past_hand_hue: float = 0.0  # Gridopolis (> 0: on; session 14): ... a probe on the hand's mask showing a colour
    # whose hue is this far from the hand's own skin (the median of its pixels) sees past the hand: a red piece
    # beside the hand has a skin hue and joins its blob; and the colour read past the hand is told from skin so
    past_hand_chroma: float = 0.0  # ... when its chroma also exceeds the skin's by this much (plastic is more vivid)
    past_hand_far: float = 0.0  # Gridopolis (> 0: on; session 14): ... a probe on the mask whose colour is this far in
    # hue from the skin (a green or blue piece), not yellow, of a piece's chroma, sees past the hand however faint
    # (in the hand's shade a green pawn is no more vivid than skin); a site with ``past_hand_far_n`` such probes is
    # read past the hand with ``past_hand_far_share`` of ``piece_past_hand``'s share of probes clear of it
    past_hand_far_n: int = 4
    past_hand_far_share: float = 0.5
    cover_scale: int = 8  # the skin search works on the picture shrunk this much
    skin_hue: tuple[float, float] = (15.0, 80.0)  # CIELAB hue angles of skin
    skin_chroma: tuple[float, float] = (8.0, 42.0)
    cover_mm2: float = 2560.0  # a skin blob larger than this (mm^2 on the board) is a hand / an arm
    cover_dab: tuple[float, float] = (4.0, 9.0)  # colour ramp telling skin from the print under it
    cover_share: float = 0.25  # share of a site's view on such a blob: the site is covered
    tint_ring_mm: float = 0.0  # Bandera (> 0: on): a stack whose probes' colour is also seen on the board all round
    # it, this far out from a single cube's faces, is a tinted patch of light or shade, not a piece ...
    tint_share: float = 0.75  # ... on this share of the ring's points seen clear of the stack ...
    tint_de: float = 8.0  # ... within this a*b* difference (shading undone) of the probes' median colour ...
    tint_points: int = 8  # ... of at least this many
    shadow_tint: bool = False  # Bandera: the print in shadow, lit only by the room's other light (a bluish sky), is
    # no piece: the shadows' colour is measured on the board's light print darker than the lit print's fit
    shadow_dark: float = 0.85  # ... print samples darker than this x the fit are in shadow (or under a piece) ...
    shadow_min_samples: int = 30  # ... and this many of them agreeing on one colour give the shadows' light ...
    shadow_tint_min: float = 0.06  # ... if it is tinted (a channel this far, log, from their mean: a grey shade is
    # undone by the shading factor already)
    cast_shadow: float = 0.0  # Bandera (> 0: on): a hard lamp's shadows are no piece. The lamp is found from the
    # stacks read (the direction whose shadows of them agree with the dark print round them, F1 score at least
    # this; no hand found), and a plain stack read by its probes is decided again without those whose rays end
    # in another stack's shadow: one that then reads empty (and shows no socket) is empty
    cast_shadow_dark: float = 0.55  # ... the print darker than this x the fit is dark
    cast_shadow_sockets: bool = True  # ... a stack showing a cube's socket is kept
    cast_shadow_points: int = 450  # ... the lamp fitted on at most about this many points round the stacks
    cast_shadow_tall: int = 0  # Bandera (> 0: on): a two-cube stack on the paved columns (where royal towers stand)
    # casts also the shadow of what may stand on it -- a character (the top's square, ``character_height`` high) and a
    # flag's banner (a disc of ``flag_reach`` at the banner's heights): its probes there are left out too when a plain
    # stack is decided again (1), and those solids are casters in the lamp's search as well (2)
    cast_shadow_whole: float = 0.0  # Bandera (> 0: on): a plain stack with this share of its usable probes or more in
    # the others' shadow (too few left to decide it again) is taken for that shadow too (unless a socket shows) when
    # the print in the shadow's light measured round it (``_shade_explains``) explains its probes
    cast_shadow_local_mm: float = 40.0  # ... that light measured on the board this far round the site ...
    cast_shadow_local_points: int = 8  # ... on at least this many points ...
    cast_shadow_piece: float = 0.2  # ... and at most this share of the probes still a piece in it
    character_once_mm: float = 0.0  # Bandera (> 0: on): a character read on its own royal tower (behind the banner
    # of its colour) and on one other stack, next to it, standing within this of that stack's middle, is the
    # other's: each player has one character (rules, section 1)
    character_flag_twin: bool = False  # Bandera: a character read on a royal tower in another colour than its flag,
    # that colour's character read on another stack too, is the flag's owner's when that one is seen nowhere
    # (one character per player, rules section 1; it starts on its own royal tower, section 3)
    character_on_empty: int = 0  # Bandera (> 0: on): a player whose flag is read but whose character is seen nowhere,
    # its character seen standing one cube high, on at least this many probes, over exactly one square read empty: a
    # cube stands there, carrying it (characters only ever stand on cubes, rules section 6; one per player, section
    # 1) -- a pale cube the probes took for the paper; looked for before ``character_by_flag`` puts that character on
    # its royal tower
    character_on_empty_royal: bool = False  # ... and a player's character read on its own royal tower alone, seen so
    # over one square read empty next to it, is that square's
    character_own_royal: bool = False  # Bandera: a character read on its own royal tower (flag of its colour) and
    # on one plain stack too is the royal tower's: the plain stack's is dropped, with a note (one character per
    # player, rules section 1; it starts on its own royal tower, section 3)
    royal_missing: float = 0.0  # Bandera (> 0: on): a player in the game whose royal tower is read nowhere has it
    # on its paved squares (rules sections 1-3; a captured flag's player has none): each of them read empty where two
    # cubes explain the probes better than nothing by this much is declined, with a note
    flag_once: bool = False  # Bandera: a flag colour read on two stacks or more (one flag per player, rules section 1)
    # is declined on all of them, with a note: which one carries it cannot be told (the most flag probes is no guide)
    tint_flags: bool = False  # Bandera: a stack on the paved columns the tinted-patch test would empty is kept if
    # a flag is seen on it (a player's colour at the banner's height: a patch of light is flat)
    tint_sockets: int = 0  # Bandera (> 0: on): a stack the tinted-patch test would empty is kept if its cube's
    # sockets show on this many faces of the single cube or of a tower's upper cube: a patch of light has none
    shadow_sockets: bool = False  # Bandera: a site whose probes only the shadows' light made no piece is still
    # looked at for a cube's sockets (an ivory cube's faces may match the shaded print; its sockets do not)
    cover_join_px: int = 0  # Bandera (> 0: on): skin blobs this close (pixels of the shrunk picture) are one hand
    # (fingers, split by the dark gaps between them), the gaps between them covered too
    cover_join_aspect: float = 0.0  # Bandera (> 0: on): only skin blobs this elongated (length over width: fingers)
    # or a hand's size alone are grouped; compact ones (wood or orange cubes side by side) are not
    cover_socket_top: int = 0  # Bandera: a site the hand grouping (``cover_join_px``) covers (1; 2: any covered
    # site) is read all the same when it holds a stack whose top face shows its socket (nothing on it, nothing
    # over it: the whole stack is seen)
    cover_flag: bool = False  # Bandera: a site on the paved columns a hand covers, over which a player's flag is
    # seen clear of the hand (at the banner's height, the probes on the hand left out), holds that player's royal
    # tower (two cubes: a flag stands only on one), if no other flag of that colour is found (one per player)
    tower_min_conf: float = 0.0  # Bandera (> 0: on): a plain two-cube stack (no flag) read with less confidence than
    # this is declined (``unseen``, with a note saying why)
    tower_outline_beside: bool = False  # Bandera (session 16): a plain two-cube stack (no flag) next to (8-neighbour)
    # another two-cube stack, whose top's outline (its far edges against what is behind) is no sharper at two cubes'
    # height than half a cube below and above it (the peak under ``tower_outline_peak``), has no top up there: it is
    # one cube when its outline peaks at one cube's height by ``tower_outline_single`` or more, else declined
    tower_outline_peak: float = 0.0  # ... (CIELAB difference across the edge, ``count_outline_mm`` each side)
    tower_outline_single: float = 5.0
    flag_by_character_tower: int = 0  # Bandera (session 16, > 0: on): after the other flag rules, ``flag_by_character``
    # once more for the players still without a flag, on the stacks read as two cubes whose flag no rule dropped, with
    # this many probes (a royal tower is two cubes, rules section 3; its banner, seen edge-on, shows on few)
    tower_outline_unsure: float = 0.0  # (> 0: on) ... and one whose outline peaks there by less than this is read, with
    # a note saying its top is hardly seen (so the judgement calls it unsure)
    tower_outline_rise: float = 0.0  # Bandera (session 17, > 0: on): a plain single cube (no flag, no note) whose top's
    # outline, over the four edges of the top face (far and near, all four seen in the picture), is sharper at two
    # cubes' height than at one cube's by this much or more (CIELAB difference, ``count_outline_mm`` each side, the
    # mean over the edges) has its top two cubes high: the true top's four edges all show an outline at its height, a
    # wrong height's hardly any.  It is read as a two-cube stack, with a note saying why (so the judgement calls it
    # unsure); only a cube the probes read with confidence under ``tower_outline_rise_conf`` (their margin over two
    # cubes not full) and no socket decided
    tower_outline_rise_conf: float = 1.0
    beside_tall: int = 0  # Bandera (> 0: on): a plain stack next to a royal tower or a stack carrying a character is
    # decided again without its probes whose rays meet that neighbour's character (1), or its character or flag
    # room (2), or its character, and its banner's room where they show a piece of the flag's colour (3): what
    # stands above the cubes is no solid of the hypotheses, and seen past or over a neighbour it looks like a stack
    hand_shade: float = 0.0  # Bandera (> 0: on): with a hand found in the picture, a plain stack whose tinted-patch
    # ring (``tint_ring_mm``) shows its probes' colour on this share or more of its points (under ``tint_share``) is
    # declined with a note: a hand's soft shadow darkens the print round the cell unevenly, as a cube does not
    cover_above_mm: float = 0.0  # Bandera (> 0: on): skin is looked for also where the board's volume up to this
    # height is seen against the table (a hand hovering over the far edge), where it must differ from the table
    cover_table_de: float = 15.0  # ... by this CIELAB difference (wood is skin-coloured)
    min_weight: float = 0.15  # share of a site's probes usable, below which it is "unseen"
    iterations: int = 2
    settle_in_turn: bool = False  # sites still changing after the iterations are decided one at a time
    piece_min_score: float = 0.0  # a piece hypothesis explaining less than this share of the probes is not read
    piece_min_single: bool = False  # ... only a single cube
    socket_top: float = 0.0  # Bandera (> 0: on): a cube's socket seen on its top face (L* darker than the face) ...
    socket_all: bool = False  # Bandera: every site is looked at for sockets, not only those where some probe saw a
    # piece (a black cube in light whose grey is no darker than a shadow, an ivory cube on the paper)
    count_outline: float = 0.0  # Bandera (> 0: on): a stack read as one cube where no usable probe tells one cube
    # from two (those probes all out of the picture, hidden by neighbours, or the view straight down: the count was
    # a tie) is declined when its top's far edges, the outline against what is behind, show more contrast (CIELAB
    # difference across the edge, mean of the far edges) at two cubes' height than at one's by at least this much
    count_outline_mm: float = 2.5  # ... each side of an edge this far (on the top's plane) from it
    socket_two_seen: bool = False  # Bandera: a stack read as one cube whose upper cube (were it two) shows sockets on
    # ``socket_faces`` faces while one cube's top shows none is two cubes (as on an empty site); and the socket
    # height's "two cubes" (``socket_height``) is taken at any view angle, also on a cube the sockets have just
    # found: near 45 degrees a tower's side socket may look like one cube's top socket, never the reverse (an upper
    # cube of ivory or grey-black against the paper or the table gives the probes no piece)
    socket_pair: float = 0.0  # Bandera (> 0: on): a site read empty whose single cube's top shows a socket this dark
    # (L* under its ring), darker by ``socket_pair_print`` than the print behind it explains, and one side face (of
    # either cube) a socket (``socket_side``, on a ring of interquartile range under ``socket_pair_ring``) holds a cube
    socket_pair_print: float = 8.0
    socket_pair_ring: float = 16.0
    royal_off_rail: bool = False  # Bandera: a two-cube stack whose banner looks a colour whose royal tower never stands
    # there holds the royal tower of the one player whose royal tower may stand there and is read nowhere else
    character_seats: bool = False  # Bandera: a character in the colour of a seat after every flag read (and after
    # red) is dropped, with a note: the players sit blue, red, green, yellow, each with a flag until it is captured
    character_seats_unseen_px: float = 0.0  # Bandera (session 18; > 0: on): ... unless a royal tower of its colour may
    # stand where its banner is outside the picture (or within this many pixels of its edge): a square of that colour's
    # rail whose banner would not be seen: finding no flag of that colour then says nothing
    character_past_piece: float = 0.0  # Bandera (session 18; > 0: on): a probe over a stack's top whose ray goes on to
    # that top shows a character only if it also differs from what its ray would meet past the stack (its pieceness
    # against the print or the table there over this): else it sees past the top's edge
    character_one_colour: bool = False  # Bandera (session 18): a character's colour must itself be seen on enough
    # probes (``character_min_share``), not only all player colours together
    character_proto_deg: float = 0.0  # Bandera (session 18; > 0: on): a character whose probes' median hue lies more
    # than this from its colour's prototype (``HUES``) is none (a teal top named green, a purple one blue)
    royal_empty_flag: bool = False  # Bandera: a player whose royal tower is read nowhere has it on the one square of
    # its rail read empty over which its flag is seen at the banner's height
    character_toward_deg: float = 0.0  # Bandera (> 0: on): a probe on a stack's top whose hue differs from the cube's
    # face by more than this and lies this much nearer a player's plastic than the face's hue does shows a character
    # (a blue one on a purple cube, which the fixed hue margins took for the cube): session 11
    character_top_rest: bool = False  # Bandera (session 15): a "character" the top face explains
    # (``character_face_deg``) is still one if enough of its probes show another colour than the top's (the rules
    # ``character_hue_deg`` / ``character_near_deg`` / ``character_toward_deg``, with the top's colour for the face's)
    character_own_plain_mm: float = 0.0  # Bandera (session 15; > 0: on): with ``character_own_royal``, a character seen
    # this near the middle of a plain stack's top, whose top is seen grey or more than ``character_own_plain_deg`` of
    # hue from that player's plastic round it, is the plain stack's, and the royal tower's is its banner
    character_own_plain_deg: float = 60.0
    character_own_plain_share: float = 0.2  # ... on this share of the probes over the top at least
    character_own_plain_n: int = 14  # ... and the character is seen on this many probes at least
    foot_shift: float = 0.0  # Bandera (session 15; > 0: on): a stack whose foot towards the camera (the probes 2-6 mm
    # over the board, on its near side and the lowest of its sides) shows no piece (all under this) stands on the square
    # next to it read empty whose lowest probes all show one (``foot_shown``): emptied, that square decided again
    foot_shown: float = 0.5  # ... "shows one": pieceness at least this on every usable lowest probe (``FOOT_SHOWN``)
    character_face_to_point: bool = False  # Bandera (session 15): a probe on the top cube's face (or its top's corner)
    # is hidden only by a solid between the camera and the probe, not by one behind it (its ray's end on the board)
    upper_colour: float = 0.0  # Bandera (> 0: on): a single cube whose face towards the camera shows this chroma or
    # more while its top's rim shows under ``upper_colour_ratio`` x that is two cubes (the upper one of another,
    # paler or greyer, colour: the camera sees it where the lower cube's top would be)
    upper_colour_ratio: float = 0.5
    socket_side: float = 10.0  # ... or on a side face by this much: two faces showing one make a cube
    socket_faces: int = 2
    socket_ring: float = 12.0  # ... on a face of even lightness: the ring's interquartile range of L* below this
    socket_strong: float = 25.0  # a top face's socket this dark, on a ring this even, is enough alone
    socket_strong_ring: float = 8.0
    socket_face_to_point: bool = False  # Bandera (session 16): the socket points on a single cube's faces (its top, its
    # four sides) are hidden only by a solid between the camera and the point, not by one behind the face (where
    # their rays would go on to the board); a tower's upper faces keep the rays' ends on the board
    black_outline: float = 0.0  # Bandera (> 0: on): a site read empty on which a single cube's outline, from
    # the pose, is darker just inside than just outside (grey under this x outside) ...
    black_outline_mm: float = 2.0  # ... this far either side of the outline ...
    black_outline_share: float = 0.45  # ... on this share of its usable points ...
    black_outline_points: int = 18  # ... of at least this many, holds a (black) cube
    socket_height: bool = False  # Bandera: where the top face's socket is seen (one cube's top, 22 mm up, or
    # two cubes', 44 mm) tells the count, where a tower's upper side sockets do not look like one cube's top
    socket_height_dark: float = 10.0  # ... a middle this much darker than its ring (L*, beyond the print) ...
    socket_height_ring: float = 6.0  # ... on a ring this even (interquartile range of L*) ...
    socket_height_margin: float = 5.0  # ... darker by this than at the other height ...
    socket_height_sep_mm: float = 5.0  # ... the rays through a tower's upper side sockets passing this far from
    # one cube's top socket
    margin_full: float = 0.15  # a winner this far ahead of the runner-up is sure
    empty_bias: float = 0.0  # added to the empty hypothesis' score
    pad_ring: float = 0.85  # a pad's own colour is read on a ring this far out (x its half-size)
    box_own_pad: bool = True  # a box face point must differ from the site's own pad too (session 7)
    ring_clear_of_piece: bool = True  # a pad's own colour is read only where a piece on it would not hide it
    ring_short_neighbours: int = 0  # (> 0: on) a pad a site stands on whose ring shows fewer than 3 points clear of a
    # piece there takes the colour of the nearest (up to this many) pads of its level (plain pads) or its group's
    # whose rings are clear, not that of its ring's points a piece may cover (session 9: a box read on the pad's
    # ring made the box the pad's colour, and the site "empty") ...
    ring_short_chroma: float = 8.0  # ... when its ring's colour is more colourful than theirs by this (a piece's)
    group_pool: bool = True  # ... and the solids of a group on one level share their ring points' median
    group_own_points: int = 3  # a structure solid of a group (``structure_groups``) whose ring is seen on fewer
    # points than this takes the colour seen on the others of its group
    local_light_mm: float = 0.0  # Gridopolis (> 0: on): a piece's colour is named in the light of the plain pads
    # (grey plastic) on its level within this of it whose ring is seen: their tint, relative to their lightness,
    # is undone first (a bluish shade under an upper level is no blue piece)
    pad_hue_split: tuple[tuple[str, float], ...] = ()  # Gridopolis: a marker colour's hue (per player colour) as
    # the plastic shows it: a colour nearer in hue to the hyper-pads' own colour in this picture is theirs, no piece
    min_chroma: float = 10.0  # below: a grey / white / black piece
    player_chroma: float = 25.0  # a flag's or character's plastic is at least this colourful (print is not)
    flag_agree: float = 0.6  # share of a flag's probes that must agree on its colour
    blocker_min_probes: int = 2  # probes only a blocker box explains ...
    blocker_colour_share: float = 0.5  # ... of which this share must show the box's colour, else a marker
    crown_min_share: float = 0.15  # share of the probes over a marker that must show its gold crown
    box_margin_mm: float = 0.0  # Gridopolis (> 0: on): points on a blocker box's faces whose rays pass this
    # far from a marker (pawn or king) tell the two apart; the box needs ``blocker_colour_share`` of them
    box_hue: bool = True  # ... in the marker's hue (else: anything not the background)
    box_share: float = 0.3  # ... this share of them showing it: a box
    box_min_points: int = 6  # ... that many of them seen, else the probes' scores decide
    box_faces_equal: bool = True  # the share is the mean of the box top's and the sides' shares (each seen
    # on 3 points or more; the sides have three times the points and lie in shade more often)
    marker_saturation: tuple[tuple[str, float], ...] = ()  # Gridopolis: a marker's colour needs chroma / L*
    # at least this (per player colour), else it is no player's
    marker_saturation_under: tuple[tuple[str, float], ...] = ()  # ... and this on a site with a pad above it (its
    # shade is lit by the sky's fill light: a plain pad there looks bluish; session 9)
    saturation_under_unlit: bool = False  # Gridopolis (session 16): ... and that floor holds for the colour before
    # ``local_light_mm``'s correction too: the plain pads round it, whose light is divided out, are lit by the lamps,
    # the shade under a pad by the sky's cool fill (a warm lamp's correction made that shade look blue)
    ring_alike_de: float = 0.0  # Gridopolis (> 0: on; session 16): a piece whose colour (before the local light's
    # correction) lies within this CIELAB difference of its own pad's ring seen round it (not a kingerizer, whose
    # ring is its player's colour) is declined: what is seen is the pad's own colour (a lavender underside in shade)
    marker_ring_contrast: tuple[tuple[str, float, float, float], ...] = ()  # Gridopolis (session 10): a marker of a
    # colour too pale for ``marker_saturation`` (not under a pad) is still that colour at (colour, chroma / L* at least,
    # b* at most this much off its own pad's ring, seen round it, the ring's chroma / L* at most): a piece is bluer
    # than the grey pad it stands on, a bluish light is as blue on the pad as in the middle
    flag_margin: float = 2.5  # rays this close to the tower (bevels, a cube set slightly askew) are left out
    flag_chroma: float = 15.0  # a flag's banner seen on camera (thin: mixed with what is behind it)
    blur_px: int = 3
    board_px_per_mm: float = 2.0
    geometry: PieceGeometry = field(default_factory=PieceGeometry)
    sure_min_weight: float = 0.0  # (> 0: on) a site with a share of usable probes between this and ``min_weight``
    # is read all the same when they say "a piece" unanimously: its best piece beats "empty" by ``sure_margin``
    # and the piece shows a player's colour; else it stays "unseen" (Gridopolis round 7)
    sure_margin: float = 0.5
    sure_shape: bool = True  # ... and, a marker or a box, only when the box/marker test saw its faces ...
    sure_shape_margin: float = 0.25  # ... and its share is this far from ``box_share`` (a clear answer)
    sure_box_fit: float = 0.0  # Gridopolis (> 0: on; session 11): ... or when it was read a box that the probes' fit
    # prefers to a marker by this much (the probes only a box would explain show the piece), no hand being found in the
    # picture (skin seen past a pad made a dark yellow box)
    shape_by_rule: bool = False  # Gridopolis (session 10): ... not on a kingerizer, where the rules leave no box
    # (docs/rules/gridopolis.md, "Blocker boxes": not on a pad occupied by a kingerizer; ``part_rules``) and the shape
    # has nothing to tell
    yellow_crown: float = 0.0  # Gridopolis (> 0: on): a yellow marker is a king when the middle of its top, up to
    # 3.5 mm above it, is bluer (linear blue over green, log) than the rim of its top by this much: the gold crown
    # has far more blue in it than the yellow plastic, in the same light (session 8) ...
    yellow_crown_unsure: float = 0.0  # ... and declined (neither clearly) when it is bluer by this much less
    yellow_crown_relief: float = 0.0  # (> 0: on) ... or a king when bluer at all and the top, up to 4 mm above it
    # within the crown's reach, spans this much of L* (90th less 10th percentile): a crown's points and rim are a
    # relief, lit and shaded unevenly, where a pawn's top is one flat face (session 9)
    yellow_crown_flat: float = 0.0  # (> 0: on) ... but a pawn, however blue its middle, when that span is under this:
    # a lamp's highlight on a pawn's flat top is as blue as a crown, and as even as the top (session 14)
    box_fit_share: float = 0.0  # Gridopolis (> 0: on): a box also when its faces show its colour on this share
    # of the points (below ``box_share``) and the probes' fit prefers a box to a pawn by ``box_fit_margin``
    box_fit_margin: float = 0.1
    box_fit_alone: float = 0.0  # Gridopolis (> 0: on): a box also when the probes prefer one by this much, whatever its
    # faces show (session 10: dim light shows none of a box's rims in its colour)
    colour_below_crown: bool = False  # Gridopolis: a marker's colour is read on the probes whose rays pass clear of
    # where a king's crown would be (the gold crown, seen from above, is no player's colour; session 8)
    empty_min_inside: int = 0  # (> 0: on) a site read empty needs this many usable probes inside the smallest
    # piece's solids (where that piece, standing there, would be seen itself), else it is "unseen": hardly anything
    # of it could be seen (an upper level in front), so "empty" would be a guess (session 9)
    part_rules: bool = False  # Gridopolis: no blocker box is read on a kingerizer or a hyper-pad, and a marker on
    # an opponent's kingerizer is a king (docs/rules/gridopolis.md, "Caja bloqueadora" and "Kings"; session 8)


#: Gridopolis: the least chroma / L* of a marker's colour, per player colour: half what the plastic
#: shows in the open on the development renders (blue 0.9, red 0.75, green 0.56, yellow 0.65); the
#: bluish shade under an upper level shows 0.3-0.5 (docs/boards_vision.md, "Accuracy round 4")
MARKER_SATURATION: tuple[tuple[str, float], ...] = (("blue", 0.45), ("red", 0.375), ("green", 0.28), ("yellow", 0.325))
#: Gridopolis, session 9: a blue marker on a site with a pad above it (in that pad's shade) needs chroma / L* of 0.6,
#: else it is declined: the shade, lit by the sky's fill light, made plain pads there look blue up to 0.74 (median
#: 0.46, 10 false pieces on 240 development scenes); the blue pieces there read 0.46-3.2 (median 1.3, 2 of 38 under 0.6)
SAT_UNDER: tuple[tuple[str, float], ...] = (("blue", 0.6),)
#: Gridopolis, session 10: a blue marker paler than 0.45 (not under a pad) is still blue from chroma / L* 0.3 when its
#: b* is 18 below its own pad's ring's (seen round it) and that ring is grey (chroma / L* 0.15 at most): on 294
#: development scenes three blue pieces (0.34-0.45, b* 19-27 below a ring of 0.03-0.05) read empty, and no empty pad of
#: 0.3-0.45 with a grey ring was more than 16.2 below it (two with yellowish rings, 0.25 and 0.38, were 23 and 28)
RING_CONTRAST: tuple[tuple[str, float, float, float], ...] = (("blue", 0.3, -18.0, 0.15),)
#: Gridopolis, session 16: a piece read whose colour (before the local light's correction) lies within this CIELAB
#: difference of its own pad's ring (not a kingerizer) is declined: on 250 development tables 5 false pieces (blue: the
#: lavender pads' shaded undersides beside a hand; yellow: two lit level-3 pads) lay at 2.0-3.8 and the nearest piece
#: read right at 10.2
RING_ALIKE_DE: float = 6.0


#: Gridopolis, session 11: a box seen on few probes (``sure_min_weight``) whose faces the box / marker test cannot see
#: is read all the same when the probes' fit prefers a box to a marker by this much, no hand being in the picture (the
#: same margin ``box_fit_alone`` asks of a site seen whole): on 354 development scenes 8 such boxes read right and none
#: wrong (of 13 few-probe pieces declined for their shape with a fit of 0.14 or more, 12 were boxes; the 13th, a yellow
#: "box" that was skin past a pad, is left out by the hand); the markers so declined all had a fit of 0 or less
SURE_BOX_FIT: float = 0.2
#: Gridopolis, session 11: a site a hand partly covers is read on its probes clear of the hand (mask grown by one shrunk
#: pixel) when at least this share of its probes is usable there -- twice ``min_weight`` -- and they show a piece of a
#: player's colour, not skin-coloured, beating "empty" by ``sure_margin``: on 354 development scenes 12 start-row and
#: upper pawns (256-1,200 pixels) read right and none wrong (0.3 and 0.4 alike); without the skin test two skin-coloured
#: "yellow" readings (hue 60-69, chroma 15-24) were wrong
PIECE_PAST_HAND: float = 0.3
#: Gridopolis: ... a probe on the hand's mask showing a colour this far in hue (degrees) from the hand's own skin, and
#: this much more vivid (chroma), not yellow (skin in the light turns yellow), sees past the hand; the same tells the
#: colour read there from skin.  The skin range (hue 15-80, chroma 8-42) takes in red plastic (hue 22-36, chroma
#: 30-43 beside the hands of the development renders, whose skin was hue 45-65, chroma 10-22): a red pawn beside the
#: hand joined its blob.  On 480 development tables 15 pieces (179-2,041 px) read right, none wrong (docs/
#: boards_vision.md, "Session 14: Gridopolis boards not exact")
PAST_HAND_HUE: float = 20.0
PAST_HAND_CHROMA: float = 8.0
#: Gridopolis, session 14: ... a probe on the hand's mask 60 degrees of hue from the skin (green, blue; not red, 15-40
#: from it), not yellow, of a piece's chroma, sees past the hand however faint, and a site with 4 such probes is read
#: past the hand with half the share of clear probes (0.15).  Development: 2 green pawns and 1 blue pawn (86-155 px)
#: read right of 276 tables, none wrong; at 40 degrees a red pawn on an unfound pad above was read a king below
#: (docs/boards_vision.md, "Session 14: Gridopolis pieces declined beside a hand")
PAST_HAND_FAR: float = 60.0
#: Gridopolis, session 16: a site declined below the next level is read from its own pad top when, where a pawn there
#: would be seen, the top is darker (5 L*) and shifted 6 a*b* towards a player's colour against the rest of its seen
#: top (docs/boards_vision.md, "Session 16: Gridopolis shade under the pads")
SLIT_SHADE_SHIFT: float = 6.0
#: Gridopolis (session 17): ``slit_lamp`` -- the pad tops of ``slit_shade_*`` compared as a lamp fitted to the
#: picture's pad tops would show them fully lit (docs/boards_vision.md, "Session 17: a lamp for Gridopolis")
SLIT_LAMP: bool = False
#: Gridopolis (session 19): ``part_counts`` -- a piece whose shape the picture does not tell made a blocker box / a
#: marker where each player's 3 markers and 2 boxes force it.  Development (held18 + held18b + three sets of session
#: 19's renders, 60 pictures): 8 cells read right (5 declined, 3 wrong before), none made wrong; check (24 pictures):
#: 4 right, none wrong (docs/boards_vision.md, "Session 19: Gridopolis blockers and declined pieces").  Switched OFF
#: by the lead after the held-out set held19: first pictures 10 -> 12 wrong cells (a green box and a green pawn
#: swapped), 17 -> 13 visible pieces declined, no board more exact.
PART_COUNTS: bool = False


#: Gridopolis: how far (mm, on one level) the plain pads whose light a piece's colour is named in may lie: one
#: and a half pitches (the site's own pad and its eight neighbours; docs/boards_vision.md, "Session 7: a piece's
#: colour in its local light")
LOCAL_LIGHT_MM: float = 75.0
#: ... and how many of them must be seen with nothing read on them (a pad under a piece may show the piece)
LOCAL_LIGHT_PADS: int = 2


#: Gridopolis: the hue (CIELAB, degrees) of a player's plastic near the hyper-pads' purple as the development
#: renders show it (blue: 280-302, median 288, over the fixtures and three development sets, against 304-328 for
#: the hyper-pads' top seen in deep shade; docs/boards_vision.md, "Session 7: a piece's colour in its local light")
PLASTIC_HUES: tuple[tuple[str, float], ...] = (("blue", 288.0),)


#: Gridopolis: how much bluer (log of linear blue over green) the middle of a yellow king's top (its gold crown)
#: shows than the rim of its top (yellow plastic), at least: kings 0.06-1.26 (median 0.80), pawns -1.4 to 0.72 on
#: the development renders; from 0.15 less up it is declined (docs/boards_vision.md, "Session 8: Gridopolis pieces
#: on the start rows")
YELLOW_CROWN_BLUE: float = 0.85
YELLOW_CROWN_UNSURE: float = 0.15
#: ... and the L* span (90th less 10th percentile) of its top up to 4 mm above it, within 6 mm of its middle, from
#: which a yellow marker that is bluer there at all is a king: kings 7.3-39 (median 12.5), pawns 1-33 (95 % below
#: 7.8; the four above 9.4 all less blue in the middle than on the rim) on the development renders
#: (docs/boards_vision.md, "Session 9: Gridopolis pieces on pads built above other pads")
YELLOW_CROWN_RELIEF: float = 9.4
#: ... and the L* span under which a yellow marker is a pawn however blue the middle of its top: on 478
#: development renders (session 14) the yellow pawns bluer there than 0.7 (a lamp's highlight on the flat top;
#: 11, of them 6 read kings and 5 declined) spanned 2.8-6.8, the kings that blue 7.6-33 (docs/boards_vision.md,
#: "Session 14: Gridopolis boards not exact")
YELLOW_CROWN_FLAT: float = 7.2


#: Bandera (session 16, ``flag_by_character_tower``): the probes showing a player's colour at the banner's height that
#: make a stack read as two cubes on its paved squares its royal tower, when its character is on the board and its flag
#: read nowhere (a note says so; ``flag_by_character`` 2 stays for single cubes).  Development, 482 pictures: 2 royal
#: towers read plain now right, nothing else changed (docs/boards_vision.md, "Session 16: Bandera royal towers")
FLAG_BY_CHARACTER_TOWER = 1

#: Bandera: the paved columns, the only squares a royal tower (the only piece with a flag) ever stands
#: on (docs/rules/bandera.md, "Paved squares" and set-up)
BANDERA_PAVED_COLUMNS: tuple[int, ...] = (0, 9)


#: Bandera: the tallest thing on its board, a royal tower's flag (2 x 22 mm cubes + 28 mm): a hand is
#: looked for wherever the board's volume up to this height is seen (docs/boards_vision.md, round 7)
BANDERA_COVER_ABOVE_MM: float = 72.0




@lru_cache(maxsize=1)
def bandera_flag_rails() -> dict[tuple[int, int], frozenset[str]]:
    """Bandera: per paved square, the flag colours whose royal tower may stand there in a game of two,
    three or four players with the default names (a royal tower starts on its square and moves only
    along its paved squares: docs/rules/bandera.md, set-up and "Paved squares"; ``royal_range``)."""
    from engine.bandera.board import DEFAULT_NAMES, TWO_PLAYER_NAMES, royal_range

    out: dict[tuple[int, int], set[str]] = {}
    for players in (TWO_PLAYER_NAMES, DEFAULT_NAMES[:3], DEFAULT_NAMES[:4]):
        for i, name in enumerate(players):
            for sq in royal_range(tuple(players), i):
                out.setdefault((int(sq[0]), int(sq[1])), set()).add(name)
    return {k: frozenset(v) for k, v in out.items()}


def bandera_rails_for(seen: Collection[str]) -> dict[str, frozenset[tuple[int, int]]]:
    """Bandera: each default-named player's paved squares (its royal tower's rail, ``royal_range``) given the
    colours ``seen`` on the board: the players sit in the order blue, red, green, yellow, so green seen means
    three or four players, yellow four; otherwise two, three or four (the union of the rails)."""
    from engine.bandera.board import DEFAULT_NAMES, TWO_PLAYER_NAMES, royal_range

    counts = (4,) if "yellow" in seen else (3, 4) if "green" in seen else (2, 3, 4)
    out: dict[str, set[tuple[int, int]]] = {}
    for n in counts:
        players = TWO_PLAYER_NAMES if n == 2 else DEFAULT_NAMES[:n]
        for i, name in enumerate(players):
            out.setdefault(name, set()).update((int(q[0]), int(q[1])) for q in royal_range(tuple(players), i))
    return {k: frozenset(v) for k, v in out.items()}


#: Bandera (session 10): a single cube's face this colourful (CIELAB chroma) with a grey top rim is two cubes.
#: Development (309 scored renders): 20 -> 11 wrong cells right, 1 new wrong; 15 -> 13 right, 6 new wrong
UPPER_COLOUR = 20.0
#: Bandera (session 10): a site read empty whose single cube's top shows a socket this dark (L*) with one more face's
#: is a cube. Development: 20 (and 25) -> 4 ivory cubes right, 0 new wrong; 15 -> 4 right, 1 new wrong
SOCKET_PAIR = 20.0
#: Bandera, session 10 (``cast_shadow_whole``): a plain stack with this share of its usable probes in the lamp's shadow
#: of the other stacks (their cubes, and on the paved columns a royal tower's character and banner) is that shadow when
#: the dark print round it explains its probes; 0.5-0.9 changed the same 5 cells of 309 development scenes, 0.01 lost a
#: cube (docs/boards_vision.md, "Session 10: Bandera false stacks in a royal tower's shadow")
CAST_SHADOW_WHOLE = 0.8
#: Bandera: a probe over a stack's top shows a character where its hue has turned from the cube face's by more than
#: this many degrees and come as much nearer a player's plastic (12 and 20 did 2 cells worse than 15 over 385
#: development scenes; docs/boards_vision.md, "Session 11: Bandera on fresh pictures")
CHARACTER_TOWARD_DEG = 15.0
#: Bandera: the probes a character seen over a square read empty must show (``character_on_empty``): the median of
#: the probes showing a character read on a stack, over the session-14 development sets (first quartile 10, which
#: also took a royal tower's banner for a character)
#: Bandera: a royal tower's neighbours decided again without the probes on its character, and those of its flag's
#: colour in its flag's room (3; docs/boards_vision.md, "Session 14: Bandera false stacks beside royal towers")
BESIDE_TALL = 3
CHARACTER_ON_EMPTY = 14
#: Bandera (session 15): a character seen within this of a plain stack's middle, on a top seen round it in a colour
#: that cannot pass for the player's, wins over the one read on the player's royal tower (its banner): 4 right
#: tables of the 434 development pictures, none lost; 5 mm took a green royal tower's character (docs/boards_vision.md,
#: "Session 15: Bandera characters")
CHARACTER_OWN_PLAIN_MM = 4.0
#: Bandera (session 18, ``character_past_piece``; off in ``config_for``): a probe over a stack's top whose ray goes
#: on to that top shows a character only where it also differs from what the ray would meet past the stack by this
#: pieceness (0.8: the test the probes going past a stack already used; not tuned).  With ``character_one_colour``:
#: development (84 tables, 7 shifts) 78 -> 74 wrong cells, 0 new wrong; four check sets (48 tables) unchanged.
CHARACTER_PAST_PIECE = 0.8
#: Bandera (session 18, ``character_seats_unseen_px``; off): a late seat's character is kept when a square of its royal
#: tower's rail has its banner outside the picture or within this many pixels of its edge (1 development cell right)
CHARACTER_SEATS_UNSEEN_PX = 10.0
#: Bandera (session 18, ``character_proto_deg``; off): a character's probes' median hue at most this far from its
#: colour's prototype.  Development 74 -> 68 wrong cells but 1 new wrong (a blue character lost); check sets: 1 right
#: and 0 new on two fresh ones, 1 right and 1 new wrong (a blue character lost) on one seen before: not switched on
CHARACTER_PROTO_DEG = 34.0
#: Bandera (session 12): a probe darker than this (L*, shading undone) where the print is light is a black piece, not a
#: shadow (the reader's default, 45, left the faces of black cubes in warm or dim light to "shade": black stacks read
#: one cube short or a cube read beside them).  Chosen leaving each development set out in turn (45-55 tried; 47-50
#: a plateau): wrong cells 60 -> 55 on six sets (228 scenes), 132 -> 131 on ten more (236); 50 was worse on the ten
#: (136).  The gain rests on few scenes (docs/boards_vision.md, "Session 12: board cells across sets")
BANDERA_BLACK_LIGHTNESS = 47.0


#: Bandera: a stack's foot towards the camera showing no piece on any usable probe (pieceness under this) while a
#: square next to it read empty shows one on all its lowest probes (this or more) is that square's stack
#: (docs/boards_vision.md, "Session 15: Bandera stacks")
FOOT_BARE = 0.5
FOOT_SHOWN = 0.5
#: Bandera (session 16): a plain two-cube stack beside another two-cube stack whose top's outline is no sharper at two
#: cubes' height than half a cube below and above (a peak under 0: no top there) is one cube when the outline peaks at
#: one cube's height by this much (CIELAB difference), else declined.  0 (any peak) read 12 more wrong cells than 5 on
#: the 482 development pictures; only 0 and 5 were tried (docs/boards_vision.md, "Session 16: Bandera false stacks")
TOWER_OUTLINE_SINGLE = 5.0
#: Bandera (session 16): ... and one whose outline peaks there by less than this is read with a note (unsure): without
#: it the judgement's leave-one-set-out run let one more wrong tower through silently (the tower2 class, more often
#: right, crossed P_SURE); 5: 46 -> 44 silent wrong, one picture (10: the same, 2 more right cells unsure)
TOWER_OUTLINE_UNSURE = 5.0
#: Bandera (session 17): a single cube whose top's outline (all four edges) is this much sharper at two cubes' height
#: than at one cube's is two cubes (``tower_outline_rise``).  On the 553 development pictures of "Session 17: Bandera
#: stacks alone" the true cubes read as cubes show a rise of -15.6 (median; 90 % under -3.9), the towers read as one
#: cube show 25 % over 4; 12 and 15 were tried (docs/boards_vision.md, "Session 17: Bandera stacks alone")
TOWER_OUTLINE_RISE = 12.0


def config_for(game: str) -> ClassifyBoardConfig:
    """The classify thresholds for ``game``: Gridopolis has no black piece, so nothing is read as
    one there (the shade under the grid-set's upper levels is deep).  The colour-difference ramp is
    wider for the 3-D pieces than for Quirky's flat tokens: light bouncing off a coloured cube or pad
    tints the paper and pads around it (tuned on re-seeded development renders, docs/boards_vision.md).
    Bandera also tells a character by a hue nearer a player's than its cube's, decides pieces that
    keep hiding each other one at a time and reads no single cube that explains under 70 % of its
    probes (docs/boards_vision.md, "Accuracy round 3"); it looks for the cubes' sockets (round 4).
    Bandera and Quirky count skin as grey as chroma 4 as a hand (dark skin in dim light), and Quirky
    takes a grey token's printed dark centre up to L* 60 (round 4).  Bandera looks for flags only on
    towers on the paved columns and counts the flag probes whose rays go on to the tower's own
    character (round 5); there it also looks at stacks read as one cube, a flag found on one making
    it a royal tower unless a two-cube tower or another such cube shows that colour or no character
    of that colour is read (round 6).  It looks for a hand also where the board's volume is seen against
    the table (fingers over the far edge), counts a stack's cubes by the height its top socket is seen
    at, reads a flag only in a colour whose royal tower may stand on its square, and reads no character
    of the colour the stack's top face shows at its corners; a player whose character is seen but whose
    flag is not has it on the stack of its paved squares showing its colour (round 7).  On the paved columns
    the top cube's colour, against which a character is told, is read without the face probes showing a
    player's plastic: a royal tower's banner or pole seen in front of the face; a site read empty where a
    single cube's outline, from the pose, is darker inside than outside holds a cube (a black cube in warm
    light, no darker than a shadow, round 8).  Bandera: a stack whose colour the board shows all round it is
    a tinted patch (a hand's shadow); skin blobs two pixels apart are one hand; the print in a shadow of the
    room's other light's colour is no piece; one royal tower per player on its rail (session 7); a cube's
    sockets keep a stack the shadows' light or the tinted-patch test would erase, and a stack whose top
    socket shows bare is read beside grouped fingers (session 7, later).  Quirky takes a grey probe darker
    than its neighbours' mean by 10 L* as a token's dot too (a blurred dot, session 7).  Session 8: Bandera decides a
    plain stack next to a character again without the probes that character's body explains, and declines a plain
    tower read with confidence under 0.3; Quirky takes a dot amid another token found in the cell as that token's
    centre, and a pale kind (the fossil) must show its dot as the grey one does.  Session 8, later (one royal tower,
    one flag and one character per player): a royal tower's character read in another player's colour that is
    read elsewhere too is the flag owner's when that one is read nowhere; a character read on its own royal tower
    and on a plain stack is the tower's; a flag read on two stacks is declined on both; a player's royal tower
    read nowhere declines its rail's squares read empty where two cubes explain the probes better than nothing;
    a flag seen over a single cube no longer needs a character of its colour read (round 6's rule, which the flag
    rails have made redundant, dropped only true royal towers' flags on development).  With a hand found,
    Bandera declines a plain stack whose board round it shows its colour on 20 % or more of the ring's points
    (a hand's soft shadow; session 8, hands).  Session 9: Bandera finds a hard lamp from the stacks' shadows (no
    hand found) and reads a plain stack again without its probes in another stack's shadow (empty only if it then
    reads empty and shows no socket); it looks for a cube's sockets on every site.  Session 10: a single cube whose
    face shows a plastic's colour and whose top's rim hardly any is two cubes (``upper_colour``); a site read empty
    whose top socket is clearly dark, beyond its print, with one more face's socket holds a cube (``socket_pair``); a
    tower whose banner looks a colour that may not stand there is the royal tower of the one player who may and is
    read nowhere else (``royal_off_rail``); a character of a seat after every flag read is dropped
    (``character_seats``); a player whose royal tower is read nowhere has it on the one square of its rail read
    empty (some probe seeing something) over which its flag is seen (``royal_empty_flag``).  Session 10, later: a
    two-cube stack on the paved columns casts its character's and banner's shadow too, and a plain stack whose probes
    lie in the others' shadow (80 % or more) is empty where the dark print round it, in its own light, explains them
    (``cast_shadow_tall``, ``cast_shadow_whole``).  Session 11: a character is also a hue turned from the cube's towards
    a player's plastic by as much as it came nearer it (``character_toward_deg``: blue on purple).
    Gridopolis reads a site seen on only 4-15 % of its probes when they show a piece of a player's
    colour unanimously and its shape clearly (Gridopolis round 7).  Session 10: a Gridopolis blue marker paler
    than a blue marker needs (not under a pad) is blue when it is much bluer than its own pad's grey ring."""
    if game == "gridopolis":
        # (box_fit_share 0.01 / box_fit_margin 0.05, session 9: a box's faces clear of a marker lie on its rounded
        # rims, which dim or cold light shows grey; where any of them shows the box's colour and the probes' fit
        # prefers a box by 0.05, a box. 204 + 36 development scenes: boxes read as pawns 24 -> 20 (6 right, 2 pawns
        # made boxes); fixtures unchanged. ring_short_neighbours 3, session 9: dev 163 -> 158 wrong, fixtures 8 -> 7)
        return ClassifyBoardConfig(black_lightness=0.0, dab_lo=6.0, dab_hi=18.0, box_margin_mm=1.5,
                                   min_lightness=4.0, marker_saturation=MARKER_SATURATION, sure_min_weight=0.04,
                                   local_light_mm=LOCAL_LIGHT_MM, pad_hue_split=PLASTIC_HUES, part_rules=True,
                                   box_fit_share=0.01, box_fit_margin=0.05, colour_below_crown=True,
                                   ring_short_neighbours=3, marker_saturation_under=SAT_UNDER,
                                   saturation_under_unlit=True, ring_alike_de=RING_ALIKE_DE,
                                   yellow_crown=YELLOW_CROWN_BLUE,
                                   yellow_crown_unsure=YELLOW_CROWN_UNSURE,
                                   yellow_crown_relief=YELLOW_CROWN_RELIEF, yellow_crown_flat=YELLOW_CROWN_FLAT,
                                   empty_min_inside=2,
                                   marker_ring_contrast=RING_CONTRAST, box_fit_alone=0.2,
                                   shape_by_rule=True, reprobe_grid=6, sure_box_fit=SURE_BOX_FIT,
                                   piece_past_hand=PIECE_PAST_HAND, past_hand_hue=PAST_HAND_HUE,
                                   past_hand_chroma=PAST_HAND_CHROMA, past_hand_far=PAST_HAND_FAR,
                                   slit_shade_shift=SLIT_SHADE_SHIFT, slit_lamp=SLIT_LAMP,
                                   part_counts=PART_COUNTS)
    if game == "bandera":
        return ClassifyBoardConfig(dab_lo=4.0, dab_hi=14.0, character_near_deg=8.0, character_nearer_deg=5.0,
                                   settle_in_turn=True, piece_min_score=0.7, piece_min_single=True,
                                   socket_top=15.0, skin_chroma=(4.0, 42.0), flag_character_blocks=False,
                                   flag_columns=BANDERA_PAVED_COLUMNS, flag_on_single=True, flag_single_margin=0.05,
                                   flag_single_unique=True, flag_single_unique_pairs=True,
                                   flag_single_character=False, cover_above_mm=BANDERA_COVER_ABOVE_MM,
                                   socket_height=True, flag_rails=True, character_face_deg=10.0,
                                   flag_by_character=2, character_banner_deg=20.0,
                                   black_outline=0.8, tint_ring_mm=4.0, tint_share=0.6, tint_points=6,
                                   cover_join_px=2, royal_per_player=True, character_on_royal=True, shadow_tint=True,
                                   character_by_flag=True, shadow_sockets=True, tint_sockets=1, tint_flags=True,
                                   cover_socket_top=1, character_once_mm=5.0, cover_flag=True,
                                   beside_tall=BESIDE_TALL, tower_min_conf=0.3, character_flag_twin=True,
                                   character_own_royal=True, character_on_empty=CHARACTER_ON_EMPTY,
                                   character_on_empty_royal=True,
                                   royal_missing=0.05, flag_once=True, hand_shade=0.2,
                                   cast_shadow=0.5, socket_all=True, count_outline=5.0,
                                   socket_two_seen=True, upper_colour=UPPER_COLOUR, socket_pair=SOCKET_PAIR,
                                   socket_face_to_point=True,
                                   royal_off_rail=True, character_seats=True, royal_empty_flag=True,
                                   cast_shadow_tall=1, cast_shadow_whole=CAST_SHADOW_WHOLE,
                                   character_toward_deg=CHARACTER_TOWARD_DEG, black_lightness=BANDERA_BLACK_LIGHTNESS,
                                   character_face_to_point=True, character_top_rest=True,
                                   character_own_plain_mm=CHARACTER_OWN_PLAIN_MM,
                                   character_own_plain_n=CHARACTER_ON_EMPTY, foot_shift=FOOT_BARE,
                                   foot_shown=FOOT_SHOWN, tower_outline_beside=True, tower_outline_peak=0.0,
                                   tower_outline_single=TOWER_OUTLINE_SINGLE,
                                   tower_outline_unsure=TOWER_OUTLINE_UNSURE,
                                   tower_outline_rise=TOWER_OUTLINE_RISE,
                                   flag_by_character_tower=FLAG_BY_CHARACTER_TOWER)
    if game == "quirky":
        return ClassifyBoardConfig(token_dark_l=60.0, skin_chroma=(4.0, 42.0), token_past_hand=0.2,
                                   token_dot_local=10.0, token_dot_owner=0.5,
                                   token_dot_pale=25.0, token_own_probes=0.5)
    return ClassifyBoardConfig()


@dataclass(frozen=True)
class Site:
    """A place a piece can stand: ``key`` (x, y) or (x, y, level), centre in board mm, floor height."""

    key: tuple[int, ...]
    x_mm: float
    y_mm: float
    floor_mm: float = 0.0


@dataclass(frozen=True)
class CellReading:
    """What the reader saw on one site."""

    key: tuple[int, ...]
    kind: str  # "empty", a piece kind, "occluded" or "unseen"
    colour: str | None
    cubes: int
    character: bool
    confidence: float
    character_colour: str | None = None
    scores: dict[str, float] = field(default_factory=dict, compare=False, repr=False)
    #: what the reader chose against the picture's first impression because of a rule (Bandera: a banner
    #: of a colour whose royal tower never stands there), in words: reported as warnings
    notes: tuple[str, ...] = field(default=(), compare=False)
    #: the share of the site's probes that could be used (rays clear of other pieces, the hand, the picture's
    #: edge; 0-1), None where the reader does not say: how much of the site was seen (session 13)
    seen: float | None = field(default=None, compare=False)

    def to_json(self) -> dict[str, object]:
        doc: dict[str, object] = {"site": list(self.key), "kind": self.kind, "colour": self.colour,
                                  "confidence": round(self.confidence, 3)}
        if self.cubes:
            doc["cubes"] = self.cubes
        if self.character:
            doc["character"] = self.character_colour
        if self.notes:
            doc["notes"] = list(self.notes)
        return doc

    def says(self) -> tuple[Any, ...]:
        """What the reading says is on its site (kind, colour, cubes, character): equal for two readings of a
        site that agree."""
        return self.kind, self.colour, self.cubes, self.character, self.character_colour


#: the kinds of a site the reader declined to read (covered, not seen) or that the robot stands on
DECLINED_KINDS = ("occluded", "unseen", "robot")


def cell_where(key: Sequence[int]) -> str:
    """A site in words, as problems name it: ``cell (x,y)``, with `` level L`` on a Gridopolis grid-set."""
    return "cell (" + ",".join(str(v) for v in key[:2]) + ")" + (f" level {key[2]}" if len(key) > 2 else "")


def flat_sites(spec: BoardSpec) -> list[Site]:
    """Every cell of a flat board, at floor height 0."""
    return [Site((x, y), *spec.cell_centre_mm(x, y)) for y in range(spec.rows) for x in range(spec.cols)]


@dataclass(frozen=True, eq=False)
class _Appearance:
    lin: npt.NDArray[np.float32]  # expected linear RGB of the print, (H, W, 3)
    bi_region: tuple[float, float, float, float]
    k: float


@lru_cache(maxsize=8)
def _appearance(spec: BoardSpec, px_per_mm: float) -> _Appearance:
    bi = render_board(spec, px_per_mm)
    lin = srgb8_to_linear(bi.image).astype(np.float32)
    lin = np.asarray(cv2.GaussianBlur(lin, (0, 0), 0.6 * px_per_mm), np.float32)  # about a camera's blur
    return _Appearance(lin, bi.region_mm, px_per_mm)


def _expected(app: _Appearance, xy: F64) -> tuple[F64, npt.NDArray[np.bool_]]:
    x0, y0, x1, y1 = app.bi_region
    inside = (xy[:, 0] > x0 + 1) & (xy[:, 0] < x1 - 1) & (xy[:, 1] > y0 + 1) & (xy[:, 1] < y1 - 1)
    col = (xy[:, 0] - x0) * app.k - 0.5
    row = (y1 - xy[:, 1]) * app.k - 0.5
    return _remap_points(app.lin, col, row), inside


def _sample(img: U8, px: F64) -> F64:
    """Linear RGB of a BGR image at pixels (N, 2), bilinear."""
    if img.dtype == np.uint8:  # remap keeps 8-bit codes: decoded by table (the same values)
        return srgb8_codes_to_linear(_remap_raw(img, px[:, 0], px[:, 1])[:, ::-1])
    return srgb8_to_linear(_remap_points(img, px[:, 0], px[:, 1])[:, ::-1])


def _where_rows(mask: npt.NDArray[np.bool_], a: F64 | float, b: F64 | float) -> F64:
    """``np.where(mask[:, None], a, b)`` of float64 rows: ``a`` or ``b`` (N, k) (the other one (N, k), a row (k,) or a
    number), the same values, assigned row by row (numpy's ``where`` works a (N, 1) by (N, k) broadcast through small
    buffered pieces: several times slower, session 18)."""
    n = len(mask)
    if isinstance(a, np.ndarray) and a.ndim == 2 and len(a) == n:
        out = np.array(a, np.float64)
        off = ~mask
        out[off] = b[off] if isinstance(b, np.ndarray) and b.ndim == 2 and len(b) == n else b
        return out
    assert isinstance(b, np.ndarray) and b.ndim == 2 and len(b) == n
    out = np.array(b, np.float64)
    out[mask] = a
    return out


def _remap_raw(src: npt.NDArray[Any], xs: F64, ys: F64) -> npt.NDArray[Any]:
    """Bilinear samples (N, channels) of ``src`` at points, in ``src``'s type (OpenCV's remap, in
    rows of 1024)."""
    n = len(xs)
    width = 1024
    rows = max(1, -(-n // width))
    # (the points cast to float32 into one zero-padded buffer: the values ``astype(np.float32)`` gives)
    maps = np.zeros((2, rows * width), np.float32)
    maps[0, :n] = xs
    maps[1, :n] = ys
    mx, my = maps[0].reshape(rows, width), maps[1].reshape(rows, width)
    out = cv2.remap(src, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return np.asarray(out).reshape(rows * width, -1)[:n]


def _remap_points(src: npt.NDArray[np.uint8] | npt.NDArray[np.float32], xs: F64, ys: F64) -> F64:
    """Bilinear samples (N, channels) of ``src`` at points (OpenCV's remap, in rows of 1024)."""
    return np.asarray(_remap_raw(src, xs, ys), np.float64)


@dataclass(frozen=True, eq=False)
class _Scene:
    """One picture prepared for probing: blurred image, board appearance, white balance, structure."""

    image: U8
    pose: BoardPose
    app: _Appearance
    gain: GainField
    structure: F64 | None
    structure_lab: F64 | None  # observed CIELAB of each structure solid's top (its own colour)
    table_lab: F64 | None = None  # what lies around the board (the table), median CIELAB
    structure_px: F64 | None = None  # each structure box's bounding box in the picture (x0, y0, x1, y1)
    structure_own_lab: F64 | None = None  # each solid's colour on its own ring alone (before its group's)
    shade: F64 | None = None  # Bandera: the light in the board's shadows relative to the lit print's, per channel
    structure_plain: npt.NDArray[np.bool_] | None = None  # structure rows that are plain pads (neutral grey)
    # whose own ring is seen (``local_light_mm``)
    pad_hue: float | None = None  # Gridopolis: the hyper-pads' hue in this picture (``pad_hue_split``)
    structure_seen: npt.NDArray[np.bool_] | None = None  # Gridopolis: structure rows whose own ring is seen
    # (the hand found in this picture, per config: :func:`_hand_mask`, computed once per picture; shared by the
    # scenes of one picture read with different structures, :class:`PictureCache`)
    hands: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True, eq=False)
class _Observed:
    """The probes of a call of :func:`classify_sites` as observed, before its obstacles (kept for a later call on
    the first of its sites: ``observed``)."""

    scene: _Scene
    config: ClassifyBoardConfig
    game: str
    centres: F64  # (S, 3) the sites' centres
    probes: F64  # (S, P, 3)
    piece: F64  # (S, P)
    valid: npt.NDArray[np.bool_]  # (S, P)
    lab: F64  # (S, P, 3)
    ends: F64  # (S, P, 3)
    shaded: list[npt.NDArray[np.bool_]]  # (S, P) each
    reprobed: frozenset[int]


@dataclass(eq=False)
class PictureCache:
    """What :func:`classify_sites` prepares from one picture alone -- not from the structure (pads) it is read
    with: the blurred picture, its white balance (when not given), the table's colour, the light in the shadows and
    the hands found.  Kept by the caller per picture and passed to every reading of that picture (the same image
    and pose), so a picture read again with a pad added or left out does not redo them (session 17).  Each entry
    is keyed by what it depends on (the config's blur, the white balance object), so a different config or white
    balance is prepared anew."""

    image: U8  # (the picture the entries were made from: a call with another picture prepares its own)
    pose: BoardPose
    blurred: dict[int, U8] = field(default_factory=dict)  # blur_px -> blurred picture
    gains: dict[tuple[int, bool], GainField] = field(default_factory=dict)  # (blur_px, constant) -> fitted gain
    # (blur_px, id(gain)) -> (gain, table CIELAB); (config, id(gain)) -> (gain, shade light, hands)
    tables: dict[tuple[int, int], tuple[GainField, F64 | None]] = field(default_factory=dict)
    shades: dict[tuple[Any, int], tuple[GainField, F64 | None, dict[Any, Any]]] = field(default_factory=dict)

    def fits(self, image: U8, pose: BoardPose) -> bool:
        """Whether this cache was made from ``image`` seen at ``pose`` (the same objects)."""
        return image is self.image and pose is self.pose


def _observe(sc: _Scene, pts: F64, cfg: ClassifyBoardConfig, known: F64 | None = None,
             known_lab: F64 | None = None, chroma_only: bool = False,
             expected_out: list[F64] | None = None, slack: bool = False,
             shaded_out: list[npt.NDArray[np.bool_]] | None = None, usable_only: bool = False
             ) -> tuple[F64, F64, npt.NDArray[np.bool_], F64]:
    """For probe points (N, 3): (piece-ness (N,), observed CIELAB (N, 3), usable (N,), ray ends (N, 3)).

    The background a probe is compared with is what its ray meets after it: the print, a structure
    solid (its observed colour) or one of the ``known`` solids (pieces already read, with colours
    ``known_lab``).  With ``slack`` the print is also compared a little off where the pose puts it
    (``print_slack_mm``).  ``shaded_out`` (if given) receives which probes only the shadows' light
    (``sc.shade``) made no piece.  ``usable_only`` (callers that use the usable probes' values only; without
    ``expected_out`` and ``shaded_out``): the colours are looked at only on the probes in the picture and hidden
    by no structure solid -- the others cannot be usable; their piece-ness and colour are left 0 (session 18: the
    same numbers on the usable probes, every step being per probe)."""
    cam = sc.pose.camera_position
    w, h = sc.pose.image_size
    px = sc.pose.project(pts)
    in_img = (px[:, 0] > 2) & (px[:, 0] < w - 3) & (px[:, 1] > 2) & (px[:, 1] < h - 3)
    ends = segments_to_board(cam, pts)
    t0 = np.linalg.norm(pts - cam, axis=1) / np.maximum(np.linalg.norm(ends - cam, axis=1), 1e-9)
    hidden: npt.NDArray[np.bool_] = np.zeros(len(pts), bool)
    first_structure: npt.NDArray[np.int64] | None = None
    if sc.structure is not None and len(sc.structure):
        # a structure solid (an upper pad) between the camera and the probe hides it; one beyond the
        # probe is its background (boxes, as the Gridopolis pads: one pass over the rays for both, and
        # only the boxes seen around each ray's pixel)
        if not sc.structure[:, 0].any():
            hidden, first_structure = box_ray_hits(cam, ends, sc.structure, t0, px, sc.structure_px)
        else:
            before = np.asarray(hits(cam, ends, sc.structure, t_min=0.0, t_max=t0 - 1e-3), bool)
            hidden = np.asarray(before.any(axis=1), bool)
    if usable_only and expected_out is None and shaded_out is None:
        j = np.nonzero(in_img & ~hidden)[0]
        n = len(pts)
        piece = np.zeros(n)
        lab_o = np.zeros((n, 3))
        usable = np.zeros(n, bool)
        if len(j):
            piece[j], lab_o[j], usable[j] = _observe_colours(
                sc, pts[j], px[j], in_img[j], ends[j], t0[j], hidden[j],
                None if first_structure is None else first_structure[j], cfg, known, known_lab, chroma_only, None,
                slack, None)
        return piece, lab_o, usable, ends
    piece, lab_o, usable = _observe_colours(sc, pts, px, in_img, ends, t0, hidden, first_structure, cfg, known,
                                            known_lab, chroma_only, expected_out, slack, shaded_out)
    return piece, lab_o, usable, ends


def _observe_colours(sc: _Scene, pts: F64, px: F64, in_img: npt.NDArray[np.bool_], ends: F64, t0: F64,
                     hidden: npt.NDArray[np.bool_], first_structure: npt.NDArray[np.int64] | None,
                     cfg: ClassifyBoardConfig, known: F64 | None, known_lab: F64 | None, chroma_only: bool,
                     expected_out: list[F64] | None, slack: bool, shaded_out: list[npt.NDArray[np.bool_]] | None
                     ) -> tuple[F64, F64, npt.NDArray[np.bool_]]:
    """:func:`_observe`'s colours, given its probes' pixels, ray ends and structure solids met: (piece-ness, observed
    CIELAB, usable)."""
    cam = sc.pose.camera_position
    obs = _sample(sc.image, _where_rows(in_img, px, 0.0))
    exp, on_board = _expected(sc.app, ends[:, :2])
    lab_o = linear_to_lab(np.clip(obs / sc.gain.at(ends[:, :2]), 0.0, None))
    lab_e = linear_to_lab(exp)
    on_print = on_board.copy()  # rays whose background is the print (not the table, a pad, a piece)
    if sc.table_lab is not None:  # rays going past the board's edge meet the table
        lab_e = _where_rows(on_board, lab_e, sc.table_lab)
        on_board = np.ones_like(on_board)
    for rows, labs in ((sc.structure, sc.structure_lab), (known, known_lab)):
        if rows is None or labs is None or not len(rows):
            continue
        if rows is sc.structure and first_structure is not None:
            any_hit: npt.NDArray[np.bool_] = np.asarray(first_structure >= 0, bool)
            first = np.maximum(first_structure, 0)
        else:
            hit = np.asarray(hits(cam, ends, rows, t_min=t0 - 1e-6, t_max=1.0), bool)  # (N, G) beyond the probe
            top = np.where(hit, rows[None, :, 5], -np.inf)
            first = np.argmax(top, axis=1)  # rays come from above: the highest solid hit is met first
            any_hit = np.asarray(hit.any(axis=1), bool)
        lab_e = _where_rows(any_hit, labs[first], lab_e)
        on_board = on_board | any_hit
        on_print &= ~any_hit
    piece = _pieceness(lab_o, lab_e, cfg, chroma_only)
    if sc.shade is not None and on_print.any():
        # the print in shadow, lit by the room's other light only (bluer than the lamp's): no piece
        # (a black piece is still darker than any shadow of the lit print: ``black_lightness``)
        j = np.nonzero(on_print & (piece > 0))[0]
        black = np.where(lab_e[j, 0] > cfg.dark_expected_min,
                         np.clip((cfg.black_lightness - lab_o[j, 0]) / 10.0, 0.0, 1.0), 0.0) if not chroma_only else 0.0
        was_piece = piece[j] > 0.5
        piece[j] = np.minimum(piece[j], np.maximum(_pieceness(lab_o[j], linear_to_lab(exp[j] * sc.shade[None, :]),
                                                              cfg, chroma_only), black))
        if shaded_out is not None:
            shaded = np.zeros(len(pts), bool)
            shaded[j] = was_piece & (piece[j] <= 0.5)
            shaded_out.append(shaded)
    if slack and cfg.print_slack_mm > 0 and on_print.any():
        # the print a little off where the pose puts it (pose and lens errors, blurred edges between
        # printed colours): a probe matching the print nearby is not a piece
        j = np.nonzero(on_print & (piece > 0))[0]
        d = cfg.print_slack_mm
        shifts = np.array([(d, 0.0), (-d, 0.0), (0.0, d), (0.0, -d)])
        alt, _ = _expected(sc.app, (ends[None, j, :2] + shifts[:, None, :]).reshape(-1, 2))  # all four at once
        p_alt = _pieceness(np.tile(lab_o[j], (len(shifts), 1)), linear_to_lab(alt), cfg, chroma_only)
        piece[j] = np.minimum(piece[j], p_alt.reshape(len(shifts), -1).min(axis=0))
    if expected_out is not None:
        expected_out.append(lab_e)
    usable = in_img & on_board & ~hidden
    if cfg.min_lightness > 0:
        usable &= lab_o[:, 0] >= cfg.min_lightness
    return piece, lab_o, usable


def _reprobe(sc: _Scene, cfg: ClassifyBoardConfig, probes_s: F64, piece: F64, valid: npt.NDArray[np.bool_],
             lab_o: F64, ends: F64, centres: F64, reach: float, tallest: float) -> set[int]:
    """Sites with at most one probe usable (fewer than ``cfg.sure_min_weight`` of them): probed again on a finer
    grid (``reprobe_grid`` lines a side within ``reach`` of the centre, heights at half ``height_step_mm``); where
    at least ``reprobe_min`` of those are usable, the site's probes (all arrays, in place; ``ends`` flat) are replaced
    by usable ones spread evenly over them (session 10: a piece under an upper pad, seen through the slit below it)."""
    n_s, n_p = valid.shape
    few = np.nonzero(valid.sum(axis=1) < max(cfg.sure_min_weight, 1.0 / n_p) * n_p)[0]
    done: set[int] = set()
    if not len(few):
        return done
    g = np.linspace(-reach, reach, cfg.reprobe_grid)
    gx, gy = np.meshgrid(g, g)
    grid = np.column_stack([gx.ravel(), gy.ravel()])  # (G, 2)
    step = cfg.height_step_mm / 2
    zs = np.arange(step / 2, tallest + step, step)
    n_q = len(grid) * len(zs)
    pts = np.empty((len(few), len(grid), len(zs), 3))
    pts[..., :2] = centres[few, None, None, :2] + grid[None, :, None, :]
    pts[..., 2] = centres[few, None, None, 2] + zs[None, None, :]
    p_f, l_f, v_f, e_f = _observe(sc, pts.reshape(-1, 3), cfg, slack=True, usable_only=True)
    p_q, l_q, v_q = p_f.reshape(len(few), n_q), l_f.reshape(len(few), n_q, 3), v_f.reshape(len(few), n_q)
    pts_q, e_q = pts.reshape(len(few), n_q, 3), e_f.reshape(len(few), n_q, 3)
    ends_s = ends.reshape(n_s, n_p, 3)
    for r, i in enumerate(few):
        ok = np.nonzero(v_q[r])[0]
        if len(ok) < max(cfg.reprobe_min, int(valid[i].sum()) + 1):
            continue
        pick = ok[np.linspace(0, len(ok) - 1, min(n_p, len(ok))).round().astype(np.int64)]
        m = len(pick)
        probes_s[i, :m], piece[i, :m], valid[i, :m] = pts_q[r, pick], p_q[r, pick], True
        lab_o[i, :m], ends_s[i, :m] = l_q[r, pick], e_q[r, pick]
        valid[i, m:] = False
        done.add(int(i))
    return done


def _pieceness(lab_o: F64, lab_e: F64, cfg: ClassifyBoardConfig, chroma_only: bool = False) -> F64:
    """0..1: how surely a colour seen is *not* the expected background (print, pad, table).

    * colour: the a*b* difference after undoing shading (the observed a*b* scaled by the expected
      over the observed lightness, at most ``shade_gain_max``): a shadow darkens the print but keeps
      its colour, a piece brings its own;
    * brighter than the print by far (a light piece over ink);
    * black where the print is light: darker than any shadow (``black_lightness``).
    With ``chroma_only`` only the colour counts (a piece's own faces differ in shading)."""
    k = np.clip(lab_e[:, 0] / np.maximum(lab_o[:, 0], 1.0), 1.0, cfg.shade_gain_max)
    if chroma_only:
        k = np.ones_like(k)
    dab = np.hypot(k * lab_o[:, 1] - lab_e[:, 1], k * lab_o[:, 2] - lab_e[:, 2])
    p_c = np.clip((dab - cfg.dab_lo) / (cfg.dab_hi - cfg.dab_lo), 0.0, 1.0)
    if chroma_only:
        return np.asarray(p_c, np.float64)
    dl = lab_o[:, 0] - lab_e[:, 0]
    p_l = np.clip((dl - cfg.brighter_lo) / (cfg.brighter_hi - cfg.brighter_lo), 0.0, 1.0)
    p_d = np.where(lab_e[:, 0] > cfg.dark_expected_min,
                   np.clip((cfg.black_lightness - lab_o[:, 0]) / 10.0, 0.0, 1.0), 0.0)
    return np.asarray(np.maximum(np.maximum(p_c, p_l), p_d), np.float64)


def _hue_name(lab: F64, cfg: ClassifyBoardConfig, allowed: Sequence[str] | None) -> str | None:
    a, b = float(lab[1]), float(lab[2])
    chroma = math.hypot(a, b)
    if chroma < cfg.min_chroma:
        return "white" if lab[0] > 70 else "grey" if lab[0] > 30 else "black"
    hue = math.degrees(math.atan2(b, a)) % 360
    names = [n for n in HUES if allowed is None or n in allowed]
    if not names:
        return None
    return min(names, key=lambda n: abs((hue - HUES[n] + 180) % 360 - 180))


def _hue_names(lab: F64, cfg: ClassifyBoardConfig, allowed: Sequence[str] | None) -> list[str | None]:
    """:func:`_hue_name` of every colour (N, 3) at once."""
    if len(lab) == 0:
        return []
    names = [n for n in HUES if allowed is None or n in allowed]
    hue = np.degrees(np.arctan2(lab[:, 2], lab[:, 1])) % 360
    chroma = np.hypot(lab[:, 1], lab[:, 2])
    best: list[str | None] = [None] * len(lab)
    if names:
        protos = np.array([HUES[n] for n in names])
        near = np.argmin(np.abs((hue[:, None] - protos[None, :] + 180) % 360 - 180), axis=1)
        best = [names[int(k)] for k in near]
    return [_hue_name(lab[j], cfg, allowed) if chroma[j] < cfg.min_chroma else best[j] for j in range(len(lab))]


def _player_hue_deg(hue: F64, allowed: Sequence[str] | None) -> F64:
    """Hue distance (degrees) of each hue angle ``hue`` to the nearest player colour's prototype."""
    names = [n for n in HUES if allowed is None or n in allowed] or list(HUES)
    protos = np.array([HUES[n] for n in names])
    return np.asarray(np.abs((hue[..., None] - protos + 180.0) % 360.0 - 180.0).min(axis=-1), np.float64)


#: :func:`_solid_rows` made already: (id of the hypothesis, site) -> (the hypothesis, its rows); emptied when large
_SOLID_ROWS: dict[tuple[int, Site], tuple[Hypothesis, F64]] = {}


def _solid_rows(h: Hypothesis, site: Site) -> F64:
    """The solids of hypothesis ``h`` standing on ``site`` (rows as in :func:`vision.board_rays.hits`), read-only: kept
    and given again to later calls (session 18: a reading asks for the same rows hundreds of times)."""
    key = (id(h), site)
    got = _SOLID_ROWS.get(key)
    if got is not None and got[0] is h:
        return got[1]
    if not h.solids:
        rows = np.zeros((0, 6))
    else:
        rows = np.array([[0.0 if s.shape == "box" else 1.0, site.x_mm, site.y_mm, s.half, site.floor_mm + s.z0,
                          site.floor_mm + s.z1] for s in h.solids])
    rows.setflags(write=False)
    if len(_SOLID_ROWS) >= 20000:
        _SOLID_ROWS.clear()
    _SOLID_ROWS[key] = (h, rows)
    return rows


class _SolidTable:
    """Every hypothesis's solid rows on every site (the values :func:`_solid_rows` gives, by the same operations), to
    gather the solids of a choice of hypotheses at once (session 19: the readings ask for them over and over)."""

    def __init__(self, hyps: Sequence[Hypothesis], sites: Sequence[Site]) -> None:
        self.count = np.array([len(h.solids) for h in hyps], np.int64)
        m = int(self.count.max()) if len(hyps) else 0
        self.rows = np.zeros((len(hyps), len(sites), max(m, 1), 6))
        xs = np.array([s.x_mm for s in sites], np.float64)
        ys = np.array([s.y_mm for s in sites], np.float64)
        fl = [s.floor_mm for s in sites]
        for c, h in enumerate(hyps):
            for j, sol in enumerate(h.solids):
                r = self.rows[c, :, j]
                r[:, 0] = 0.0 if sol.shape == "box" else 1.0
                r[:, 1], r[:, 2], r[:, 3] = xs, ys, sol.half
                r[:, 4] = [f + sol.z0 for f in fl]  # (each sum as :func:`_solid_rows` makes it)
                r[:, 5] = [f + sol.z1 for f in fl]
        self._slots = np.arange(self.rows.shape[2])

    def chosen(self, choice: npt.NDArray[np.int64], leave_out: Iterable[int] = ()) -> tuple[F64, npt.NDArray[np.int64]]:
        """:func:`_chosen_solids` of ``choice`` (one hypothesis index per site): the rows, site by site in order, each
        site's in its hypothesis's order, and the site of each row."""
        ch = np.asarray(choice, np.int64)
        have = self._slots[None, :] < self.count[ch][:, None]  # (S, m)
        skip = [int(i) for i in leave_out]
        if skip:
            have[skip] = False
        owner, _ = np.nonzero(have)
        if not len(owner):
            return np.zeros((0, 6)), np.zeros(0, np.int64)
        return self.rows[ch, np.arange(len(ch))][have], owner


def _chosen_solids(hyps: Sequence[Hypothesis], choice: npt.NDArray[np.int64], sites: Sequence[Site],
                   leave_out: Iterable[int] = (), table: _SolidTable | None = None
                   ) -> tuple[F64, npt.NDArray[np.int64]]:
    """The solids (rows of :func:`_solid_rows`) of every site's chosen hypothesis but the sites in
    ``leave_out``, and the site each row belongs to (gathered from ``table``, made for these hypotheses and sites,
    when given)."""
    if table is not None:
        return table.chosen(choice, leave_out)
    skip = {int(i) for i in leave_out}
    others = [(_solid_rows(hyps[int(c)], s), j) for j, (c, s) in enumerate(zip(choice, sites, strict=True))
              if j not in skip]
    rows = [r for r, _ in others if len(r)]
    if not rows:
        return np.zeros((0, 6)), np.zeros(0, np.int64)
    return np.concatenate(rows), np.concatenate([np.full(len(r), j) for r, j in others if len(r)])


def classify_sites(
    image: U8,
    pose: BoardPose,
    sites: Sequence[Site],
    game: str,
    *,
    colours: Sequence[str] | None = None,
    structure: F64 | None = None,
    token_kinds: Sequence[str] | None = None,
    obstacles: F64 | None = None,
    config: ClassifyBoardConfig | None = None,
    timings: dict[str, float] | None = None,
    gain: GainField | None = None,
    structure_groups: npt.NDArray[np.int64] | None = None,
    pad_sites: Sequence[Site] | None = None,
    pad_empty: npt.NDArray[np.bool_] | None = None,
    prepared: list[Any] | None = None,
    picture: PictureCache | None = None,
    observed: list[Any] | None = None,
) -> list[CellReading]:
    """Read every site of a located board: kind, colour, confidence (module docstring).

    ``colours`` limits the owner colours to expect (the players' colours); ``structure`` lists fixed
    solids (rows as in :func:`vision.board_rays.hits`: Gridopolis pads) that are part of the
    background, not pieces; ``token_kinds`` (Quirky) the token kinds the scenario uses; ``obstacles``
    solids that are no piece and hide what is behind them (the robot's body); ``gain`` the picture's
    white balance when an earlier stage has fitted it already (Gridopolis pad detection);
    ``structure_groups`` one number per ``structure`` row: rows of one group (>= 0) are made alike (the
    Gridopolis hyper-pads, each player's kingerizers), and a row whose own top is not seen takes the colour
    seen on the others (:func:`_structure_colours`).  Gridopolis: each site stands on the structure row of its
    index (its pad); with ``pad_sites`` (the sites standing on the first structure rows, read already, and of
    them ``pad_empty`` those read empty) ``sites`` are places standing on no structure row (where a pad may stand
    but none was found, read for a piece), and ``obstacles`` (the rooms of the pieces read on ``pad_sites``) hide
    what is behind them: a probe whose ray meets one says nothing.  ``prepared``: an empty list receives the
    picture as prepared for probing (white balance, the structure's colours); given back (not empty) to a later
    call on the same picture, structure and sites (``pad_sites``), it is used as it is.  ``picture``: what was
    prepared from this picture alone by earlier calls with any structure (:class:`PictureCache`, made for this
    image and pose); filled and used, the same values as computed anew.  ``observed``: an empty list receives the
    sites' probes as observed (before ``obstacles`` are applied); given back (not empty) to a later call on the same
    prepared picture (``prepared``) and config whose sites are the first sites of that call, their observations are
    taken from it instead of observed again (session 17: the Gridopolis places read again on their own)."""
    cfg = config or config_for(game)
    if picture is not None and not picture.fits(image, pose):
        picture = None  # (made from another picture: not used)
    n_own = len(sites) if pad_sites is None else len(pad_sites)
    t0 = time.perf_counter()
    if prepared:  # (the picture prepared by an earlier call on it: the same structure, white balance, pads)
        sc = prepared[0]
    else:
        pc = picture or PictureCache(image, pose)
        blurred = pc.blurred.get(cfg.blur_px)
        if blurred is None:
            blurred = np.asarray(cv2.blur(image, (cfg.blur_px, cfg.blur_px)), np.uint8) if cfg.blur_px > 1 else image
            pc.blurred[cfg.blur_px] = blurred
        app = _appearance(pose.spec, cfg.board_px_per_mm)
        if gain is None:
            gain = pc.gains.get((cfg.blur_px, structure is not None))
            if gain is None:
                gain = _gain_field(blurred, pose, app, constant=structure is not None)
                pc.gains[(cfg.blur_px, structure is not None)] = gain
        s_px = None
        if structure is not None and len(structure) and not structure[:, 0].any():
            corners = pose.project(box_corners(structure).reshape(-1, 3)).reshape(len(structure), 8, 2)
            s_px = np.concatenate([corners.min(axis=1) - 4.0, corners.max(axis=1) + 4.0], axis=1)
        sc = _Scene(blurred, pose, app, gain, structure, None, structure_px=s_px)
        kept_table = pc.tables.get((cfg.blur_px, id(gain)))
        if kept_table is not None and kept_table[0] is gain:
            table = kept_table[1]
        else:
            table = _table_colour(sc)
            pc.tables[(cfg.blur_px, id(gain))] = (gain, table)
        own: list[F64] = []
        ring_seen: list[npt.NDArray[np.bool_]] = []
        s_lab = _structure_colours(sc, cfg, structure_groups, sites if pad_sites is None else pad_sites, own,
                                   ring_seen) if structure is not None and len(structure) else None
        plain = None
        if cfg.local_light_mm > 0 and structure is not None and structure_groups is not None and ring_seen:
            # plain pads (the first rows, one per site; not a hyper-pad nor a kingerizer) whose ring is seen
            plain = ring_seen[0] & (structure_groups < 0) & (np.arange(len(structure)) < n_own)
        pad_hue = None
        if cfg.pad_hue_split and s_lab is not None and structure_groups is not None:
            hyper = s_lab[(structure_groups == 0) & (np.hypot(s_lab[:, 1], s_lab[:, 2]) >= cfg.min_chroma)]
            if len(hyper):  # (their circular mean hue)
                pad_hue = math.degrees(math.atan2(float(np.sin(np.arctan2(hyper[:, 2], hyper[:, 1])).mean()),
                                                  float(np.cos(np.arctan2(hyper[:, 2], hyper[:, 1])).mean()))) % 360
        try:  # (the shadows' light and the hands: kept per config and white balance; an unhashable config is not)
            kept_shade = pc.shades.get((cfg, id(gain)))
        except TypeError:
            kept_shade = None
        if kept_shade is not None and kept_shade[0] is gain:
            shade, hands = kept_shade[1], kept_shade[2]
        else:
            shade, hands = _shadow_light(blurred, pose, app, gain, cfg) if cfg.shadow_tint else None, {}
            with contextlib.suppress(TypeError):
                pc.shades[(cfg, id(gain))] = (gain, shade, hands)
        sc = _Scene(blurred, pose, app, gain, structure, s_lab, table, s_px, own[0] if own else None,
                    shade, plain, pad_hue, ring_seen[0] if ring_seen and cfg.marker_ring_contrast else None,
                    hands=hands)
        if prepared is not None:
            prepared.append(sc)
    if game == "quirky":
        tokens = _classify_tokens(sc, sites, token_kinds, obstacles, cfg)
        if timings is not None:
            timings["classify.tokens_s"] = time.perf_counter() - t0
        return tokens
    hyps = hypotheses_for(game, cfg.geometry)
    n_s = len(sites)
    start_of: dict[int, str] = {}  # Gridopolis: the sites that are a kingerizer, with its player's colour
    allowed = None
    if game == "gridopolis" and cfg.part_rules and structure_groups is not None:
        allowed, start_of = _part_rules(hyps, structure_groups[:n_s] if pad_sites is None
                                        else np.full(n_s, -1, np.int64))
    widest = max(s.half for h in hyps for s in h.solids)
    tallest = max(s.z1 for h in hyps for s in h.solids)
    zs = np.arange(cfg.height_step_mm / 2, tallest + cfg.height_step_mm, cfg.height_step_mm)
    cam = pose.camera_position
    n_z = len(zs)
    centres = np.array([[s.x_mm, s.y_mm, s.floor_mm] for s in sites])
    # vertical probe lines: the centre, and towards / away from the camera and to both sides of it
    u = centres[:, :2] - cam[None, :2]
    u /= np.maximum(np.linalg.norm(u, axis=1, keepdims=True), 1e-9)
    v = np.column_stack([-u[:, 1], u[:, 0]])
    a = cfg.line_reach * widest
    offs = np.stack([np.zeros_like(u), a * u, -a * u, a * v, -a * v], axis=1)  # (S, L, 2)
    n_l = offs.shape[1]
    probes = np.empty((n_s, n_l, n_z, 3))
    probes[..., :2] = centres[:, None, None, :2] + offs[:, :, None, :]
    probes[..., 2] = centres[:, None, None, 2] + zs[None, None, :]
    probes_s: F64 = probes.reshape(n_s, n_l * n_z, 3)
    n_p = probes_s.shape[1]
    shaded_f: list[npt.NDArray[np.bool_]] = []
    kept = observed[0] if observed else None
    if kept is not None and not (kept.scene is sc and kept.config == cfg and kept.game == game
                                 and len(kept.centres) >= n_s and np.array_equal(kept.centres[:n_s], centres)
                                 and kept.piece.shape[1] == n_p):
        kept = None  # (observed on another picture, structure, config or probes: not used)
    piece: F64
    valid: npt.NDArray[np.bool_]
    lab_o: F64
    ends: F64
    reprobed: set[int]
    if kept is not None:  # (the same probes observed by an earlier call: its first sites are these)
        probes_s, piece, valid = kept.probes[:n_s].copy(), kept.piece[:n_s].copy(), kept.valid[:n_s].copy()
        lab_o, ends = kept.lab[:n_s].copy(), kept.ends[:n_s].reshape(-1, 3).copy()
        shaded_f = [sh[:n_s].ravel() for sh in kept.shaded]
        reprobed = {i for i in kept.reprobed if i < n_s}
    else:
        piece_f, lab_f, valid_f, ends = _observe(sc, probes_s.reshape(-1, 3), cfg, slack=True,
                                                 shaded_out=shaded_f if cfg.shadow_sockets else None)
        piece = piece_f.reshape(n_s, n_p)
        valid = valid_f.reshape(n_s, n_p)
        lab_o = lab_f.reshape(n_s, n_p, 3)
        reprobed = set()
        if cfg.reprobe_grid > 0 and game == "gridopolis" and not shaded_f:
            reprobed = _reprobe(sc, cfg, probes_s, piece, valid, lab_o, ends, centres, a, tallest)
        if observed is not None and not observed:
            observed.append(_Observed(sc, cfg, game, centres.copy(), probes_s.copy(), piece.copy(), valid.copy(),
                                      lab_o.copy(), ends.reshape(n_s, n_p, 3).copy(),
                                      [sh.reshape(n_s, n_p).copy() for sh in shaded_f], frozenset(reprobed)))
    if pad_sites is not None and obstacles is not None and len(obstacles) and game == "gridopolis":
        # (the pieces read on the pads: a ray meeting one says nothing about these places)
        valid = valid & ~np.asarray(hits(cam, ends.reshape(-1, 3), obstacles), bool).any(axis=1).reshape(n_s, n_p)
    t1 = time.perf_counter()
    # sites where no probe sees anything are empty: only the others are weighed in detail
    cand = np.nonzero(((piece > 0.5) & valid).any(axis=1))[0]
    ends_s = ends.reshape(n_s, n_p, 3)
    pred = np.zeros((len(hyps), n_s, n_p), bool)
    inside_role: list[dict[str, npt.NDArray[np.bool_]]] = []
    solid_table = _SolidTable(hyps, sites)
    for k, hyp in enumerate(hyps):
        roles: dict[str, npt.NDArray[np.bool_]] = {}
        if hyp.solids and len(cand):
            rows = solid_table.rows[k, cand, :len(hyp.solids)]  # (C, m, 6)
            hit = hits(cam, ends_s[cand], rows[:, None, :, :])  # (C, P, m)
            pred[k, cand] = hit.any(axis=2)
            for j, sol in enumerate(hyp.solids):
                if sol.role == "cube":
                    continue
                ins = np.zeros((n_s, n_p), bool)
                ins[cand] = _inside(probes_s[cand], rows[:, j, :])
                roles[sol.role] = roles.get(sol.role, np.zeros_like(ins)) | ins
        inside_role.append(roles)
    t2 = time.perf_counter()
    weight = valid.astype(np.float64)
    choice = _choose(pred, piece, weight, cfg.empty_bias, allowed)

    def blocked_by(ch: npt.NDArray[np.int64], targets: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_] | None:
        """(T, P): which probes of sites ``targets`` the pieces ``ch`` of the other sites hide."""
        rows_all, owner = solid_table.chosen(ch)
        if not len(rows_all):
            return None
        # (only the usable probes: a probe is weighed only when usable and not hidden)
        return ~_not_blocked(cam, ends_s[targets], rows_all, owner, targets, centres[targets, :2],
                             mask=valid[targets])

    def weight_of(ch: npt.NDArray[np.int64]) -> F64:
        """(S, P): the probes weighed with the pieces ``ch``: usable, and on a candidate site not hidden by the
        pieces of the other sites."""
        b_c = blocked_by(ch, cand)
        blocked = np.zeros((n_s, n_p), bool)
        if b_c is not None:
            blocked[cand] = b_c
        return (valid & ~blocked).astype(np.float64)

    def own_weight(ch: npt.NDArray[np.int64], i: int) -> F64:
        """(P,): site ``i``'s probes weighed with the pieces ``ch`` of the other sites."""
        b_i = blocked_by(ch, np.array([i]))
        return np.asarray(valid[i] & ~b_i[0] if b_i is not None else valid[i], np.float64)

    def choose_one(i: int, w_i: F64) -> int:
        """Site ``i``'s reading on its probes weighed ``w_i``."""
        return int(_choose(pred[:, i:i + 1], piece[i:i + 1], w_i[None, :], cfg.empty_bias,
                           None if allowed is None else allowed[:, i:i + 1])[0])

    before = choice
    settled = True
    for _ in range(cfg.iterations):
        # only candidate sites need it: the others saw nothing at all
        b_c = blocked_by(choice, cand)
        if b_c is None:
            break
        blocked = np.zeros((n_s, n_p), bool)
        blocked[cand] = b_c
        weight = (valid & ~blocked).astype(np.float64)
        new = _choose(pred, piece, weight, cfg.empty_bias, allowed)
        settled = bool(np.array_equal(new, choice))
        before = choice
        if settled:
            break
        choice = new
    if not settled and cfg.settle_in_turn:
        # pieces that hide each other (a tower with a cube right behind it) may flip to empty and
        # back together: those still changing are decided one at a time, the surest (on their own
        # probes, nothing left out) first, each hidden only by the pieces decided before it
        s0 = _scores(pred, piece, valid.astype(np.float64), cfg.empty_bias, allowed)
        flip = np.nonzero(before != choice)[0]
        s_sorted = np.sort(s0[:, flip], axis=0)
        pending = {int(i) for i in flip}
        for i in flip[np.argsort(-(s_sorted[-1] - s_sorted[-2]), kind="stable")]:
            pending.discard(int(i))
            ch = choice.copy()
            ch[list(pending)] = 0
            w_i = own_weight(ch, int(i))
            if w_i.sum() < cfg.min_weight * n_p:
                choice[i] = int(np.argmax(s0[:, i]))
            else:
                choice[i] = choose_one(int(i), w_i)
        weight = weight_of(choice)
    if cfg.foot_shift > 0 and game == "bandera" and len(cand):
        moved = _foot_shift(sites, hyps, choice, piece, valid, n_z, cfg)
        if moved:
            for j in moved:  # (the square the stack stands on, decided again without the emptied one in front)
                choice[j] = choose_one(j, own_weight(choice, j))
            weight = weight_of(choice)
    t3 = time.perf_counter()
    scores = _scores(pred, piece, weight, cfg.empty_bias, allowed)  # (K, S)
    if cfg.piece_min_score > 0:
        # a piece that explains its probes only about as well as nothing does is no piece (light
        # bouncing off coloured cubes tints the paper round them, but unlike any solid's outline)
        low = np.array([h.cubes == 1 for h in hyps]) if cfg.piece_min_single else np.arange(len(hyps)) > 0
        weak = low[choice] & (scores[choice, np.arange(n_s)] < cfg.piece_min_score)
        choice = np.where(weak, 0, choice)
    socketed: set[int] = set()
    if cfg.socket_top > 0 and game == "bandera":
        # a pale (ivory) cube on the paper has hardly a colour of its own, but its faces' sockets show
        look_s = cand
        if shaded_f:
            # sites that only the shadows' light emptied: their sockets may still show a cube (an ivory cube's
            # shaded faces match the print in the shadows' light, its dark sockets do not)
            shaded = ((shaded_f[0].reshape(n_s, n_p) | (piece > 0.5)) & valid).any(axis=1)
            look_s = np.union1d(cand, np.nonzero(shaded)[0]).astype(np.int64)
        if cfg.socket_all:
            look_s = np.arange(n_s, dtype=np.int64)
        socketed = _socket_counts(sc, sites, hyps, choice, look_s, cfg)
    cand_set = {int(i) for i in cand}
    kind_index_e = next(j for j, h in enumerate(hyps) if not h.solids)  # the empty hypothesis
    used = weight.sum(axis=1) / n_p
    solids_now = [_solid_rows(hyps[c], s) for c, s in zip(choice, sites, strict=True)]
    hand: list[npt.NDArray[np.bool_]] = []
    skin: list[F64] = []  # (the hand's skin colour, CIELAB)
    covered = _covered_sites(sc, sites, _tallest_piece(game, cfg.geometry), cfg, hand, skin)
    skin_hue = math.degrees(math.atan2(float(skin[0][2]), float(skin[0][1]))) \
        if skin and cfg.past_hand_hue > 0 else None
    skin_vivid = math.hypot(float(skin[0][1]), float(skin[0][2])) + cfg.past_hand_chroma if skin else 0.0
    bare: set[int] = set()  # Bandera: stacks read under a hand because their top's socket shows (nothing on them)
    if cfg.cover_socket_top and game == "bandera" and covered.any():
        covered, bare = _seen_whole(sc, sites, hyps, choice, covered, cfg)
    past_hand_g: set[int] = set()  # (Gridopolis) sites a hand partly covers read on the probes clear of it
    if cfg.piece_past_hand > 0 and game == "gridopolis" and hand and covered.any():
        # a site a hand partly covers is read on its probes seen clear of the hand (the mask grown by a shrunk pixel)
        # when enough of them are usable and they show a piece clearly; else it stays "occluded" (session 11)
        mask = cv2.dilate(hand[0].astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
        for i in np.nonzero(covered > 0)[0]:
            on = _probes_on_mask(sc, probes_s[i], mask, cfg.cover_scale)
            if skin_hue is not None:  # (a piece's colour on the mask, far in hue from this hand's skin, is no skin)
                hue_p = np.degrees(np.arctan2(lab_o[i, :, 2], lab_o[i, :, 1]))
                yellow_p = np.abs((hue_p - HUES["yellow"] + 180.0) % 360.0 - 180.0) < 30.0  # (skin's highlights)
                on &= ~((np.abs((hue_p - skin_hue + 180.0) % 360.0 - 180.0) >= cfg.past_hand_hue) & (piece[i] > 0.5)
                        & ~yellow_p
                        & (np.hypot(lab_o[i, :, 1], lab_o[i, :, 2]) >= max(cfg.min_chroma, skin_vivid)))
            n_far = 0
            if cfg.past_hand_far > 0 and skin_hue is not None:
                # (a colour far in hue from this hand's skin -- green, blue -- is a piece's, even in the hand's shade)
                hue_f = np.degrees(np.arctan2(lab_o[i, :, 2], lab_o[i, :, 1]))
                far = ((np.abs((hue_f - skin_hue + 180.0) % 360.0 - 180.0) >= cfg.past_hand_far) & (piece[i] > 0.5)
                       & (np.abs((hue_f - HUES["yellow"] + 180.0) % 360.0 - 180.0) >= 30.0)
                       & (np.hypot(lab_o[i, :, 1], lab_o[i, :, 2]) >= cfg.min_chroma) & (weight[i] > 0))
                on &= ~far
                n_far = int(far.sum())
            w_i = weight[i] * ~on
            need = cfg.piece_past_hand * (cfg.past_hand_far_share if n_far >= max(cfg.past_hand_far_n, 1) else 1.0)
            if w_i.sum() < need * n_p:
                continue
            s_i = _scores(pred[:, i:i + 1], piece[i:i + 1], w_i[None, :], cfg.empty_bias,
                          None if allowed is None else allowed[:, i:i + 1])[:, 0]
            k_i = int(np.argmax(s_i))
            sel = (w_i > 0) & (piece[i] > 0.5)
            if not hyps[k_i].solids or s_i[k_i] - s_i[kind_index_e] < cfg.sure_margin or sel.sum() < 2:
                continue
            med = _median_rows(lab_o[i, sel])
            hue, chroma = math.degrees(math.atan2(float(med[2]), float(med[1]))) % 360, math.hypot(med[1], med[2])
            like_skin = cfg.skin_hue[0] <= hue <= cfg.skin_hue[1] and cfg.skin_chroma[0] <= chroma <= cfg.skin_chroma[1]
            if skin_hue is not None and _hue_name(med, cfg, colours) != "yellow":
                # (this hand's own skin: a hue that far from it is not skin -- but skin in the light turns yellow)
                like_skin = like_skin and (abs((hue - skin_hue + 180.0) % 360.0 - 180.0) < cfg.past_hand_hue
                                           or chroma < skin_vivid)
            if _hue_name(med, cfg, colours) in (colours or HUES) and not like_skin:
                # (a player's colour, not skin: skin seen past the mask's edge looks like a yellow or red piece)
                weight[i], scores[:, i], choice[i], covered[i] = w_i, s_i, k_i, 0.0
                past_hand_g.add(int(i))
                used[i] = w_i.sum() / n_p
                solids_now[int(i)] = _solid_rows(hyps[k_i], sites[int(i)])
    if cfg.black_outline > 0 and game == "bandera":
        # a black cube in warm light is a mid grey, no darker than a shadow on the paper: but a shadow
        # has no cube's outline
        look = np.array([i for i in range(n_s) if choice[i] == 0 and not covered[i] and used[i] >= cfg.min_weight],
                        np.int64)
        o_rows = [r for r in solids_now if len(r)]
        if len(look):
            owner_o = np.concatenate([np.full(len(r), j) for j, r in enumerate(solids_now) if len(r)]) \
                if o_rows else np.zeros(0, np.int64)
            ol_share, ol_n = _dark_outline(sc, sites, look, np.concatenate(o_rows) if o_rows else np.zeros((0, 6)),
                                         owner_o, cfg)
            one = next(j for j, h in enumerate(hyps) if h.cubes == 1)
            ol_found = look[(ol_n >= cfg.black_outline_points) & (ol_share >= cfg.black_outline_share)]
            if len(ol_found):
                choice = choice.copy()
                choice[ol_found] = one
                socketed |= {int(i) for i in ol_found}
                solids_now = [_solid_rows(hyps[c], s) for c, s in zip(choice, sites, strict=True)]
    hand_shade: dict[int, str] = {}  # Bandera: stacks read where a hand's shadow may lie (a note)
    if cfg.tint_ring_mm > 0 and game == "bandera":
        # a patch of tinted light or shade (a hand's shadow lit by a bluish sky) colours every probe over
        # a cell as a piece would, but it does not stop at a cube's outline: the board all round shows it too
        look_t = np.array([i for i in range(n_s) if hyps[int(choice[i])].cubes > 0 and i not in socketed
                           and not covered[i]], np.int64)
        if len(look_t):
            med_lab = np.full((len(look_t), 3), np.nan)
            for j, i in enumerate(look_t):
                sel = (weight[i] > 0) & (piece[i] > 0.5)
                if sel.sum() >= 3:
                    med_lab[j] = _median_rows(lab_o[i, sel])
            t_share = np.zeros(len(look_t))
            tinted = _tinted(sc, sites, look_t, med_lab, cfg, t_share)
            if cfg.hand_shade > 0 and covered.any():
                for i, sh in zip(look_t.tolist(), t_share.tolist(), strict=True):
                    if cfg.hand_shade <= sh < cfg.tint_share:
                        x, y = sites[i].key[0], sites[i].key[1]
                        hand_shade[i] = (f"a hand is over the board, and the board round ({x},{y}) shows the colour "
                                         f"read there on {sh:.0%} of its points (a hand's shadow?): not read")
            if tinted.any() and cfg.tint_sockets > 0:
                t_idx = look_t[tinted]
                rows_t, own_t = _chosen_solids(hyps, choice, sites, t_idx.tolist(), table=solid_table)
                sk = _sockets(sc, sites, t_idx, rows_t, own_t, cfg)
                shows = (sk[:, [0, 2, 3, 4, 5]].sum(axis=1) >= cfg.tint_sockets) \
                    | (sk[:, 1].astype(np.int64) + sk[:, 6:].sum(axis=1) >= cfg.tint_sockets)
                tinted[np.nonzero(tinted)[0][shows]] = False
            if tinted.any() and cfg.tint_flags and cfg.flag_columns:
                t_idx = look_t[tinted]
                paved = t_idx[np.isin([sites[int(i)].key[0] for i in t_idx], cfg.flag_columns)]
                if len(paved):
                    rows_t, own_t = _chosen_solids(hyps, choice, sites, paved.tolist(), table=solid_table)
                    fl = _flags(sc, sites, paved, [None] * len(paved), rows_t, own_t, colours, cfg)
                    keep = {int(i) for i, f in zip(paved, fl, strict=True) if f is not None}
                    tinted &= ~np.isin(look_t, list(keep))
            if tinted.any():
                choice = choice.copy()
                choice[look_t[tinted]] = 0
                solids_now = [_solid_rows(hyps[c], s) for c, s in zip(choice, sites, strict=True)]
    # (before the characters and flags are looked for: a stack erased here is looked at for neither)
    if cfg.cast_shadow > 0 and game == "bandera" \
            and _cast_shadows(sc, sites, hyps, choice, scores, weight, pred, piece, ends_s, covered, cfg):
        solids_now = [_solid_rows(hyps[c], s) for c, s in zip(choice, sites, strict=True)]
    if cfg.upper_colour > 0 and game == "bandera":
        choice = _upper_colour(sc, sites, hyps, choice, covered, socketed, cfg)
        solids_now = [_solid_rows(hyps[c], s) for c, s in zip(choice, sites, strict=True)]
    char_of: dict[int, tuple[str | None, float, float] | None] = {}
    flag_of: dict[int, str | None] = {}
    off_rail: dict[int, str] = {}  # Bandera: a banner's first-impression colour that may not stand there
    by_rule: dict[int, str] = {}  # Bandera: a flag given by the one-flag-per-player rule (a note)
    by_char: dict[int, str] = {}  # Bandera: a character given by the one-character-per-player rule (a note)
    char_dropped: dict[int, str] = {}  # Bandera: a character not counted by that rule (a note)
    past_hand: set[int] = set()  # Bandera: royal towers read beside a hand by their flag (``cover_flag``)
    maybe_royal: dict[int, str] = {}  # Bandera: cells read empty that may hold a royal tower read nowhere (a note)
    flag_twice: dict[int, str] = {}  # Bandera: royal towers of a colour read on more than one stack (a note)
    if game == "bandera":
        g_rows = [r for r in solids_now if len(r)]
        rows_g = np.concatenate(g_rows) if g_rows else np.zeros((0, 6))
        owner_g = np.concatenate([np.full(len(r), j) for j, r in enumerate(solids_now) if len(r)]) \
            if g_rows else np.zeros(0, np.int64)
        stacks = np.array([i for i in range(n_s) if hyps[int(choice[i])].cubes > 0 and not covered[i]], np.int64)
        heights = np.array([hyps[int(choice[i])].cubes for i in stacks], np.int64)
        cube_lab: dict[int, F64] = {}
        char_n: dict[int, tuple[int, int]] = {}  # each character's probes showing it, of those seen
        top_seen: dict[int, F64] = {}  # each stack's top as the probes over it see it
        char_of = dict(zip(stacks.tolist(), _characters(sc, sites, stacks, heights, rows_g, owner_g, colours, cfg,
                                                        cube_lab, char_n, top_seen=top_seen), strict=True))
        for i in bare:  # (its top's socket is seen bare: no character on it, nor a flag)
            char_of[i] = None
        towers = stacks[(heights == 2) & ~np.isin(stacks, list(bare))]
        singles = np.zeros(0, np.int64)
        if cfg.flag_columns:  # a flag stands only on a royal tower, and royal towers only on the paved columns
            towers = towers[np.isin([sites[int(i)].key[0] for i in towers], cfg.flag_columns)]
            if cfg.flag_on_single:
                # a royal tower is two cubes with the flag on top (docs/rules/bandera.md, section 3, set-up):
                # one read as a single cube on its column may be one, its banner 61-71 mm up, far over
                # a cube or a character on it
                singles = stacks[(heights == 1) & np.isin([sites[int(i)].key[0] for i in stacks], cfg.flag_columns)
                                 & ~np.isin(stacks, list(bare))]
                if len(singles) and cfg.flag_single_margin < float("inf"):
                    # ... one whose probes two cubes explain about as well as one (fewer to look at)
                    two = np.array([h.cubes == 2 for h in hyps])
                    gap = scores[choice[singles], singles] - scores[two][:, singles].max(axis=0)
                    singles = singles[gap <= cfg.flag_single_margin]
        looked = np.concatenate([towers, singles])
        flag_counts: dict[int, dict[str, int]] = {}
        flag_of = dict(zip(looked.tolist(), _flags(sc, sites, looked, [char_of[int(i)] for i in looked],
                                                   rows_g, owner_g, colours, cfg, cube_lab, off_rail, flag_counts),
                           strict=True))
        if len(singles):
            # one flag and one character per player (docs/rules/bandera.md, section 1; a flag only
            # on its royal tower, section 3): a single cube's flag whose colour a two-cube tower shows is that tower's
            # banner seen over it; two such cubes showing one colour cannot be told apart; a flag's
            # colour is that of a character on the board
            taken = {flag_of[int(i)] for i in towers} - {None} if cfg.flag_single_unique else set()
            on_singles = [flag_of[int(i)] for i in singles]
            players = {f[0] for f in char_of.values() if f is not None}
            for i in singles.tolist():
                if flag_of[i] in taken or (cfg.flag_single_unique_pairs and on_singles.count(flag_of[i]) > 1) \
                        or (cfg.flag_single_character and flag_of[i] not in players):
                    flag_of[i] = None
        single_set = set(singles.tolist())

        def by_character(need_tower: int) -> None:
            # one flag per player, on its royal tower on its paved squares (docs/rules/bandera.md, sections 1
            # and 3): a player whose character is on the board but whose flag was not found has it on the
            # stack of its rail showing its colour most at the banner's height, if on enough probes
            # (``flag_by_character``; with ``need_tower`` > 0, only stacks read as two cubes, as a royal tower is, whose
            # flag no rule dropped, on that many)
            rails = bandera_flag_rails()
            with_char = {f[0] for f in char_of.values() if f is not None and f[0] is not None}
            flagged = {f for f in flag_of.values() if f is not None}
            for p in sorted(with_char - flagged):
                cands = [int(i) for i in looked if flag_of[int(i)] is None
                         and p in rails.get((int(sites[int(i)].key[0]), int(sites[int(i)].key[1])), frozenset())
                         and not (need_tower > 0 and (int(i) in single_set or int(i) in off_rail))]
                n_col = {i: flag_counts.get(i, {}).get(p, 0) for i in cands}
                need_n = {i: need_tower if need_tower > 0 else cfg.flag_by_character for i in cands}
                best_i = max(cands, key=lambda i: (n_col[i] >= need_n[i], n_col[i]), default=None)
                if best_i is None or n_col[best_i] < need_n[best_i]:
                    continue
                if sum(n_col[i] >= need_n[i] for i in cands) > 1:
                    continue  # two stacks show it: which one carries it cannot be told
                flag_of[best_i] = p
                x, y = sites[best_i].key[0], sites[best_i].key[1]
                by_rule[best_i] = (f"{p}'s flag was not clearly seen, but {p}'s character is on the board: "
                                   f"its royal tower taken to be the stack at ({x},{y}), which shows {p} at the "
                                   f"banner's height on {n_col[best_i]} probe{'s' if n_col[best_i] != 1 else ''}")

        if cfg.flag_by_character > 0:
            by_character(0)
        if cfg.cover_flag and hand and cfg.flag_columns:
            # a royal tower beside a hand: its flag, seen clear of the hand, tells it (docs/rules/bandera.md,
            # section 3: a flag stands only on its royal tower, two cubes; section 1: one flag per player)
            hid = np.array([i for i in range(n_s) if covered[i] > 0 and sites[i].key[0] in cfg.flag_columns],
                           np.int64)
            if len(hid):
                # (their neighbours on the column without a flag found are looked at with them: a banner seen
                # nearer one of them is its own, and a colour seen on two is neither's)
                keys = {(int(sites[i].key[0]), int(sites[i].key[1])) for i in hid}
                nbr = [i for i in range(n_s) if covered[i] == 0 and flag_of.get(i) is None
                       and any((int(sites[i].key[0]), int(sites[i].key[1]) + d) in keys for d in (-1, 1))]
                look_h = np.concatenate([hid, np.array(nbr, np.int64)])
                mask = cv2.dilate(hand[0].astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
                fl = _flags(sc, sites, look_h, [None] * len(look_h), rows_g, owner_g, colours, cfg,
                            hidden=(mask, cfg.cover_scale))
                taken = {f for f in flag_of.values() if f is not None}
                k_two = next(j for j, h in enumerate(hyps) if h.cubes == 2)
                for i, f in zip(hid.tolist(), fl[:len(hid)], strict=True):
                    if f is None or f in taken or fl.count(f) > 1:
                        continue
                    covered[i] = 0.0
                    choice[i] = k_two
                    flag_of[i] = f
                    char_of[i] = None  # (the character is looked for no further: see ``character_by_flag``)
                    past_hand.add(i)
                    stacks = np.append(stacks, i)
                    x, y = sites[i].key[0], sites[i].key[1]
                    by_rule[i] = (f"a hand hides part of ({x},{y}), but {f}'s flag is seen over it: "
                                  f"{f}'s royal tower taken to stand there")
        if cfg.royal_per_player:
            _royal_per_player(sites, stacks, choice, hyps, scores, char_of, flag_of, by_rule, off_rail, cfg)
        if cfg.flag_by_character > 0 and cfg.flag_by_character_tower > 0:
            by_character(cfg.flag_by_character_tower)  # (after the rules above: only where none of them decided)
        if cfg.royal_empty_flag:
            found_r = _royal_on_empty(sc, sites, hyps, choice, cand_set, covered, char_of, flag_of, by_rule, rows_g,
                                      owner_g, colours, cfg)
            if len(found_r):
                stacks = np.append(stacks, found_r)
                again = _characters(sc, sites, found_r, np.full(len(found_r), 2), rows_g, owner_g, colours, cfg,
                                    cube_lab, char_n)
                char_of.update(zip(found_r.tolist(), again, strict=True))
        if cfg.character_on_royal:
            # a stack read as one cube that carries a flag is a royal tower, two cubes (docs/rules/bandera.md,
            # section 3): its character stands on the upper cube's top, 22 mm higher than it was looked for
            raised = np.array([i for i in stacks
                               if flag_of.get(int(i)) is not None and hyps[int(choice[i])].cubes == 1], np.int64)
            if len(raised):
                again = _characters(sc, sites, raised, np.full(len(raised), 2), rows_g, owner_g, colours, cfg, cube_lab,
                                    char_n)
                # (found there or not at all: one seen on the single cube's top is kept)
                char_of.update({i: f for i, f in zip(raised.tolist(), again, strict=True) if f is not None})
        if cfg.character_once_mm > 0:
            # one character per player (docs/rules/bandera.md, section 1): one of the colour of a royal tower's
            # flag read there and on one other stack too, next to the tower, standing in the middle of that
            # stack's top, is the neighbour's (seen past the tall tower, its banner of that colour in front)
            for i, f in list(flag_of.items()):
                got = char_of.get(i)
                if f is None or got is None or got[0] != f:
                    continue
                twins = [j for j, g in char_of.items() if j != i and g is not None and g[0] == f]
                if len(twins) != 1:
                    continue
                j = twins[0]
                g = char_of[j]
                assert g is not None
                ki, kj = sites[i].key, sites[j].key
                if max(abs(ki[0] - kj[0]), abs(ki[1] - kj[1])) == 1 \
                        and math.hypot(g[1] - sites[j].x_mm, g[2] - sites[j].y_mm) <= cfg.character_once_mm:
                    char_of[i] = None
        if cfg.character_flag_twin:
            _character_flag_twin(sites, char_of, flag_of, by_char)
        if cfg.character_own_royal:
            _character_own_royal(sites, char_of, flag_of, char_dropped, top_seen, cfg, char_n)
        if cfg.beside_tall > 0:
            _beside_tall(sites, hyps, choice, scores, weight, pred, piece, ends_s, cam, char_of, flag_of, covered, cfg,
                         lab_o)
        if cfg.character_on_empty:
            found_c = _character_on_empty(sc, sites, hyps, choice, cand_set, covered, char_of, flag_of, by_char,
                                          past_hand, rows_g, owner_g, colours, cfg)
            if len(found_c):
                stacks = np.append(stacks, found_c)
        if cfg.character_by_flag:
            # one character per player, always on the board (docs/rules/bandera.md, sections 1 and 3: it starts
            # on its royal tower): a player whose flag is found but whose character is seen nowhere has it on its
            # royal tower, where its banner of the same colour hides it best (a note says so)
            seen_c = {f[0] for f in char_of.values() if f is not None}
            for i, f in flag_of.items():
                if f is not None and f not in seen_c and char_of.get(i) is None:
                    char_of[i] = (f, sites[i].x_mm, sites[i].y_mm)
                    x, y = sites[i].key[0], sites[i].key[1]
                    by_char[i] = (f"{f}'s character was not seen: taken to stand on {f}'s royal tower at ({x},{y}), "
                                  f"behind its banner of the same colour")
        if cfg.beside_tall > 0 and by_char:
            # (again with the characters just put on royal towers)
            _beside_tall(sites, hyps, choice, scores, weight, pred, piece, ends_s, cam, char_of, flag_of, covered, cfg,
                         lab_o)
        if cfg.character_seats:
            _character_seats(sites, char_of, flag_of, char_dropped,
                             _flags_out_of_picture(sc, sites, cfg) if cfg.character_seats_unseen_px > 0 else None)
        if cfg.royal_missing > 0:
            maybe_royal = _royal_missing(sites, hyps, choice, scores, char_of, flag_of, covered, cfg)
        if cfg.flag_once:
            flag_twice = _flag_twice(sites, hyps, choice, flag_of, covered)
    kind_index = {h.kind: j for j, h in enumerate(hyps)}
    out: list[CellReading] = []
    crown_check: list[int] = []  # Gridopolis markers and boxes: shape and crown looked at (all at once, below)
    few_read: set[int] = set()  # ... of them, those read on few probes (``sure_min_weight``)
    shape_by_box: set[int] = set()  # ... (``part_counts``) those seen through a slit whose shape is not told
    shape_open: dict[int, tuple[str, float]] = {}  # (``part_counts``) the pieces whose shape is not told: colour,
    # how box-like their outline looked
    body_lab: list[F64 | None] = []  # ... and the colour of each one's body
    # every site's margin between its two best hypotheses and the share of its probes used, at once
    cols = np.arange(n_s)
    order = np.argsort(-scores, axis=0)
    margins = (scores[order[0], cols] - scores[order[1], cols]) if len(hyps) > 1 else np.ones(n_s)
    seens = np.clip(used / 0.5, 0.0, 1.0)
    confs = np.clip(margins / cfg.margin_full, 0.0, 1.0) * seens
    empty_now = np.array([not hyps[int(c)].solids for c in choice], bool)  # sites read empty (their pads plain)
    low_inside = np.zeros(n_s, bool)  # (``empty_min_inside``) sites where the smallest piece would hardly be seen
    if cfg.empty_min_inside > 0:
        small = min((h for h in hyps if h.solids), key=lambda h: sum(sol.half * sol.half * (sol.z1 - sol.z0)
                                                                    for sol in h.solids))
        rows_small = np.stack([_solid_rows(small, st) for st in sites])
        inside = np.zeros((n_s, n_p), bool)
        for j in range(rows_small.shape[1]):
            inside |= _inside(probes_s, rows_small[:, j, :])
        low_inside = (inside & (weight > 0)).sum(axis=1) < cfg.empty_min_inside
    under = np.zeros(n_s, bool)  # (``marker_saturation_under``) Gridopolis sites with a pad above them (in its shade)
    if cfg.marker_saturation_under and sc.structure is not None and len(sc.structure):
        xyz = np.array([[st.x_mm, st.y_mm, st.floor_mm] for st in sites], np.float64).reshape(-1, 3)
        st_rows = sc.structure
        under = ((np.abs(st_rows[None, :, 1] - xyz[:, None, 0]) < 1.0)
                 & (np.abs(st_rows[None, :, 2] - xyz[:, None, 1]) < 1.0)
                 & (st_rows[None, :, 4] > xyz[:, None, 2] + 1.0)).any(axis=1)
    count_tie: dict[int, float] = {}  # Bandera: single cubes whose count no probe tells, their outline two cubes high
    if cfg.count_outline > 0 and game == "bandera":
        one_k = next(j for j, h in enumerate(hyps) if h.cubes == 1)
        two_k = next(j for j, h in enumerate(hyps) if h.cubes == 2)
        telling = ((pred[one_k] != pred[two_k]) & (weight > 0)).sum(axis=1)
        ties = [i for i in range(n_s) if choice[i] == one_k and telling[i] == 0 and i not in socketed
                and not covered[i] and flag_of.get(i) is None]
        for i, d in zip(ties, _count_outline(sc, sites, ties, cfg), strict=True):
            if d >= cfg.count_outline:
                count_tie[i] = d
    top_low: dict[int, F64] = {}  # Bandera: plain towers beside a two-cube stack whose top's outline is not up there
    top_weak: dict[int, float] = {}  # ... and those whose top's outline is hardly sharper up there
    if cfg.tower_outline_beside and game == "bandera":
        two_k = next(j for j, h in enumerate(hyps) if h.cubes == 2)
        at = {tuple(st.key[:2]): j for j, st in enumerate(sites)}
        tall_sites = {j for j in range(n_s) if hyps[int(choice[j])].cubes == 2 or flag_of.get(j) is not None}
        beside = [i for i in tall_sites if choice[i] == two_k and flag_of.get(i) is None and not covered[i]
                  and i not in hand_shade  # (declined as a hand's shadow, that rule's note said first)
                  and any(at.get((sites[i].key[0] + dx, sites[i].key[1] + dy)) in tall_sites
                          for dx in (-1, 0, 1) for dy in (-1, 0, 1) if (dx, dy) != (0, 0))]
        for i, pk in zip(beside, _outline_peaks(sc, sites, beside, cfg), strict=True):
            if pk[1] < cfg.tower_outline_peak:
                top_low[i] = pk
            elif pk[1] < cfg.tower_outline_unsure:
                top_weak[i] = float(pk[1])
    top_high: dict[int, float] = {}  # Bandera: single cubes whose top's outline is two cubes high
    if cfg.tower_outline_rise > 0 and game == "bandera":
        one_k = next(j for j, h in enumerate(hyps) if h.cubes == 1)
        four = ((1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0))
        c_mm = cfg.geometry.cube_mm
        for i in range(n_s):
            if choice[i] != one_k or flag_of.get(i) is not None or covered[i] or i in hand_shade or i in count_tie \
                    or i in socketed or confs[i] >= cfg.tower_outline_rise_conf:
                continue
            e_rows = _edge_sharpness(sc, sites[i], (c_mm, 2 * c_mm), cfg, sides=four)
            if len(e_rows) < len(four):
                continue  # (the whole outline must be seen: one edge alone may lie on something behind)
            rise = float(np.mean([r[1] - r[0] for r in e_rows]))
            if rise >= cfg.tower_outline_rise:
                top_high[i] = rise
    crown_hit: dict[int, npt.NDArray[np.bool_]] = {}  # (per site: its probes' rays meeting a king's crown there)
    for i, site in enumerate(sites):
        k = int(choice[i])
        if i in top_low and top_low[i][0] >= cfg.tower_outline_single:
            k = next(j for j, h in enumerate(hyps) if h.cubes == 1)  # (its top is one cube high)
        if i in top_high:
            k = next(j for j, h in enumerate(hyps) if h.cubes == 2)  # (its top is two cubes high)
        hyp = hyps[k]
        conf = float(confs[i]) if i in cand_set and i not in socketed else float(seens[i])
        kind = hyp.kind
        shade_hue: str | None = None  # (``marker_saturation_under``) the hue the shade under a pad may fake here
        marker_unlit: F64 | None = None  # (``ring_alike_de``) the marker's colour before the local light's correction
        few = bool(used[i] < cfg.min_weight) and i not in past_hand  # too few probes usable: declined, unless
        # they are unanimous
        if few and not (cfg.sure_min_weight > 0 and used[i] >= cfg.sure_min_weight and hyp.solids
                        and scores[k, i] - scores[kind_index["empty"], i] >= cfg.sure_margin):
            kind, conf = "unseen", 0.0
        elif covered[i] > 0:
            kind, conf = "occluded", float(covered[i])
        elif i in reprobed and (not hyp.solids
                                or scores[k, i] - scores[kind_index["empty"], i] < cfg.reprobe_margin
                                or (i not in start_of and abs(scores[kind_index["blocker"], i]
                                                              - scores[kind_index["pawn"], i]) < cfg.reprobe_shape
                                    and not (cfg.part_counts and cfg.box_margin_mm > 0))):
            # (seen only through a slit: read only a piece it shows clearly, never "empty"; its shape told, unless
            # it stands on a kingerizer, where no box may stand)
            kind, conf = "unseen", 0.0
        elif cfg.part_counts and i in reprobed and i not in start_of \
                and abs(scores[kind_index["blocker"], i] - scores[kind_index["pawn"], i]) < cfg.reprobe_shape:
            shape_by_box.add(len(out))  # (``part_counts``: its colour read, then declined, left to the counts)
        unsure = None
        if kind == "empty" and low_inside[i]:
            kind, conf = "unseen", 0.0
            unsure = (f"hardly any of the place where a piece would stand on {tuple(site.key)} is seen (something "
                      "stands in front of it): whether it is empty cannot be told, not read")
        if cfg.tower_min_conf > 0 and kind == "tower2" and flag_of.get(i) is None and conf < cfg.tower_min_conf \
                and i not in top_high:  # (its margin is one cube's over two: its outline said two)
            # a plain two-cube stack read by a small margin: things standing behind or above the cell (a tall
            # neighbour, its character, a hand's shadow) make a tower's probes as often as a tower does
            x, y = site.key[0], site.key[1]
            runner = max((h.kind for h in hyps if h.kind != "tower2"),
                         key=lambda h_k: float(scores[kind_index[h_k], i]))
            unsure = (f"({x},{y}) looks like a two-cube stack, but hardly more than "
                      f"{'nothing' if runner == 'empty' else 'one cube'} (confidence {conf:.2f}): not read")
            kind, conf = "unseen", 0.0
        if i in top_low and kind in ("tower2", "cube") and flag_of.get(i) is None:
            x, y = site.key[0], site.key[1]
            pk2, pk1 = float(top_low[i][1]), float(top_low[i][0])
            if kind == "cube":
                unsure = (
                    f"({x},{y}) looked like a two-cube stack beside another, but its top's outline is no sharper at "
                    f"two cubes' height (by {pk2:.0f}) and sharper at one cube's (by {pk1:.0f}): read as one cube")
            else:
                unsure = (f"({x},{y}) looks like a two-cube stack beside another, but its top's outline is no sharper "
                          f"at two cubes' height (by {pk2:.0f}) nor at one cube's (by {pk1:.0f}): not read")
                kind, conf = "unseen", 0.0
        if i in top_high and kind == "tower2" and flag_of.get(i) is None and unsure is None:
            unsure = (f"({site.key[0]},{site.key[1]}) looked like one cube, but its top's outline is sharper at two "
                      f"cubes' height than at one cube's (by {top_high[i]:.0f}): read as two cubes")
        if i in top_weak and kind == "tower2" and flag_of.get(i) is None and unsure is None:
            unsure = (f"({site.key[0]},{site.key[1]}) is read as a two-cube stack beside another, but its top's "
                      f"outline is hardly sharper at two cubes' height (by {top_weak[i]:.0f}): its top may be the "
                      "neighbour's")
        if i in count_tie and kind == "cube" and flag_of.get(i) is None:
            x, y = site.key[0], site.key[1]
            unsure = (f"({x},{y}) is read as one cube, but no part of it that is seen tells one cube from two, and "
                      f"its top's outline is sharper at two cubes' height (by {count_tie[i]:.0f}): not read")
            kind, conf = "unseen", 0.0
        if i in hand_shade and kind in ("cube", "tower2") and flag_of.get(i) is None:
            unsure = hand_shade[i]
            kind, conf = "unseen", 0.0
        if i in maybe_royal and kind == "empty":
            unsure = maybe_royal[i]
            kind, conf = "unseen", 0.0
        colour = None
        char_colour = None
        cubes_read = hyp.cubes
        if kind not in ("unseen", "occluded"):
            for role, ins in inside_role[k].items():
                sel = ins[i] & (weight[i] > 0) & (piece[i] > 0.5)
                if not sel.any():
                    continue
                if role == "marker":  # a player's plastic: its colourful probes (not a grey link or shadow)
                    vivid = sel & (np.hypot(lab_o[i, :, 1], lab_o[i, :, 2]) >= cfg.min_chroma)
                    if cfg.colour_below_crown and hyp.kind in ("pawn", "king"):
                        # (not those whose rays meet a king's crown: its gold would pull the colour off)
                        if i not in crown_hit:
                            crown_hit.update(_crown_hits(cam, sites, ends_s, cfg, [i] + [
                                j for j in range(i + 1, n_s) if hyps[int(choice[j])].kind in ("pawn", "king")]))
                        clear = vivid & ~crown_hit[i]
                        if clear.sum() >= max(2.0, 0.4 * vivid.sum()):
                            vivid = clear
                    sel = vivid if vivid.sum() >= max(2.0, 0.4 * sel.sum()) else sel
                med = _median_rows(lab_o[i, sel])
                unlit = med  # (before the local light's correction)
                if role == "marker":
                    marker_unlit = med
                if cfg.local_light_mm > 0 and role == "marker":
                    med = _in_local_light(sc, site, med, cfg, empty_now if pad_sites is None else pad_empty)
                name = _hue_name(med, cfg, colours)
                floor = dict(cfg.marker_saturation).get(name or "") if role == "marker" else None
                if floor is not None and math.hypot(float(med[1]), float(med[2])) < floor * max(float(med[0]), 1.0) \
                        and not (role == "marker" and not under[i] and pad_sites is None
                                 and _off_its_pad(sc, i, med, name, cfg)):
                    name = "grey"  # a player's plastic is saturated: a paler tint of its hue is shade
                under_floor = dict(cfg.marker_saturation_under).get(name or "") if role == "marker" and under[i] \
                    else None
                if under_floor is not None \
                        and (_paler(med, under_floor) or (cfg.saturation_under_unlit and _paler(unlit, under_floor))):
                    # (in the shade under a pad, lit by the sky's fill light, a plain pad looks as bluish as this)
                    shade_hue = name
                plastic = dict(cfg.pad_hue_split).get(name or "") if role == "marker" else None
                if plastic is not None and sc.pad_hue is not None:
                    hue = math.degrees(math.atan2(float(med[2]), float(med[1])))
                    if abs((hue - sc.pad_hue + 180.0) % 360.0 - 180.0) < abs((hue - plastic + 180.0) % 360.0 - 180.0):
                        name = "grey"  # the hyper-pads' own colour (their top in deep shade), not the player's plastic
                if role == "character":
                    char_colour = name
                else:
                    colour = name
            if game == "bandera" and hyp.cubes > 0:
                found = char_of.get(i)
                char_colour = found[0] if found is not None else None
                if flag_of.get(i) is not None:
                    kind, colour = "royal_tower", flag_of[i]
                    cubes_read = 2  # a royal tower is two cubes (section 3), even where one was read
        if shade_hue is not None and kind in ("pawn", "king", "blocker") and colour == shade_hue:
            kind, colour, conf = "unseen", None, 0.0
            unsure = (f"a {shade_hue} {hyp.kind} may stand on {tuple(site.key)}, but under the pad above it the shade "
                      f"looks that {shade_hue} too (chroma under "
                      f"{dict(cfg.marker_saturation_under)[shade_hue]:g} x L*): not read")
        if cfg.ring_alike_de > 0 and marker_unlit is not None and kind in ("pawn", "king", "blocker") \
                and colour in HUES and pad_sites is None and i not in start_of:
            alike = _ring_alike(sc, i, marker_unlit)
            if alike is not None and alike < cfg.ring_alike_de:
                unsure = (f"a {colour} {hyp.kind} may stand on {tuple(site.key)}, but it looks like its own pad's "
                          f"ring round it (CIELAB difference {alike:.1f} < {cfg.ring_alike_de:g}): not read")
                kind, colour, conf = "unseen", None, 0.0
        if game == "gridopolis" and kind in ("pawn", "king", "blocker") and colour not in (colours or HUES):
            kind, colour, conf = "empty", None, 0.0  # markers and blockers are a player's colour: not these
            if few or i in reprobed:  # (a site seen on too few probes is read only as a piece of a player's colour)
                kind = "unseen"
            if i in past_hand_g:  # (nor is one read past a hand: the hand may hide a piece)
                kind = "occluded"
        if few and kind in ("pawn", "king", "blocker"):
            few_read.add(len(out))
        if game == "gridopolis" and kind == "blocker" and colour in HUES:
            # a blocker box is taller and wider than a marker: the probes only the box would explain
            # must show the box's own colour, not merely something (a link, a post, a shadow)
            kb, kp = kind_index["blocker"], kind_index["pawn"]
            extra = pred[kb, i] & ~pred[kp, i] & (weight[i] > 0)
            if extra.sum() >= cfg.blocker_min_probes:
                body = pred[kp, i] & (weight[i] > 0) & (piece[i] > 0.5)
                ref = _median_rows(lab_o[i, body]) if body.any() else None
                lab_x = lab_o[i, extra]
                ch_x = np.hypot(lab_x[:, 1], lab_x[:, 2])
                if ref is not None:
                    dh_x = np.abs((np.degrees(np.arctan2(lab_x[:, 2], lab_x[:, 1]))
                                   - math.degrees(math.atan2(ref[2], ref[1])) + 180.0) % 360.0 - 180.0)
                    same = (ch_x > cfg.min_chroma) & (dh_x <= cfg.character_hue_deg)
                else:
                    same = ch_x > cfg.min_chroma
                if same.mean() < cfg.blocker_colour_share:
                    kind = "pawn"
        if game == "gridopolis" and kind in ("pawn", "king", "blocker") and colour in HUES:
            crown_check.append(len(out))
            kp = kind_index["pawn"]
            body = pred[kp, i] & (weight[i] > 0) & (piece[i] > 0.5)
            body_lab.append(_median_rows(lab_o[i, body]) if body.sum() >= 2 else None)
        if i in flag_twice and kind == "royal_tower":
            unsure = flag_twice[i]
            kind, colour, conf, char_colour = "unseen", None, 0.0, None
        notes: tuple[str, ...] = () if unsure is None else (unsure,)
        if i in by_rule and kind == "royal_tower":
            notes += (by_rule[i],)
        if i in by_char and kind in ("royal_tower", "cube"):
            notes += (by_char[i],)
        if i in char_dropped and kind in ("cube", "tower2", "royal_tower"):
            notes += (char_dropped[i],)
        if i in off_rail and kind not in ("unseen", "occluded"):
            x, y = site.key[0], site.key[1]
            notes += (f"the banner at ({x},{y}) looks {off_rail[i]}, but {off_rail[i]}'s royal tower never stands "
                     f"on ({x},{y}) (it moves only along its paved squares): read as "
                     + (f"{colour}'s royal tower" if kind == "royal_tower" else "no flag"),)
        out.append(CellReading(site.key, kind, colour, cubes_read if kind not in ("unseen", "occluded") else 0,
                               char_colour is not None, conf, char_colour,
                               {f"{h.kind}{'+c' if h.character else ''}": float(scores[j, i])
                                for j, h in enumerate(hyps)}, notes, float(used[i])))
    if crown_check and cfg.box_margin_mm > 0:
        # a blocker box or a marker: decided on the box's faces where a marker would not be seen
        g_rows = [r for r in solids_now if len(r)]
        rows_g = np.concatenate(g_rows) if g_rows else np.zeros((0, 6))
        owner_g = np.concatenate([np.full(len(r), j) for j, r in enumerate(solids_now) if len(r)]) \
            if g_rows else np.zeros(0, np.int64)
        shape = _box_or_marker(sc, sites, np.array(crown_check, np.int64), body_lab, rows_g, owner_g, cfg)
        for i, (n_box, share) in zip(crown_check, shape, strict=True):
            fit = float(scores[kind_index["blocker"], i] - scores[kind_index["pawn"], i])
            if cfg.part_counts and abs(fit) < cfg.part_counts_tie and out[i].colour is not None \
                    and i not in start_of \
                    and not (n_box >= cfg.box_min_points and share >= cfg.box_share + cfg.sure_shape_margin):
                # (a box's outline plainly showing its colour tells a box; one not showing it tells little: blur,
                # shade and posts hide that thin band as often)
                shape_open[i] = (cast(str, out[i].colour), (share - cfg.box_share) * math.sqrt(n_box))
            if i in shape_by_box:  # (seen through a slit, its shape not told: not read, unless the counts say)
                if out[i].colour is not None and not hand:  # (a declined site is opened only with no hand in the
                    # picture: its skin seen on a few probes past a pad looks like plastic)
                    shape_open[i] = (cast(str, out[i].colour), (share - cfg.box_share) * math.sqrt(n_box))
                out[i] = CellReading(out[i].key, "unseen", None, 0, False, 0.0, None, out[i].scores)
            elif i in few_read and cfg.sure_shape and (n_box < cfg.box_min_points
                                                       or abs(share - cfg.box_share) < cfg.sure_shape_margin) \
                    and not (cfg.shape_by_rule and i in start_of) \
                    and not (0 < cfg.sure_box_fit <= fit and out[i].kind == "blocker" and not hand):
                # seen on few probes and its shape not clearly seen: not guessed
                if cfg.part_counts and out[i].colour is not None and not hand:
                    shape_open[i] = (cast(str, out[i].colour), (share - cfg.box_share) * math.sqrt(n_box))
                out[i] = CellReading(out[i].key, "unseen", None, 0, False, 0.0, None, out[i].scores)
            elif n_box >= cfg.box_min_points:
                box = (share >= cfg.box_share or (0 < cfg.box_fit_share <= share and fit >= cfg.box_fit_margin)
                       or 0 < cfg.box_fit_alone <= fit) \
                    and (allowed is None or bool(allowed[kind_index["blocker"], i]))
                if box != (out[i].kind == "blocker"):
                    out[i] = replace(out[i], kind="blocker" if box else "pawn")
    if cfg.part_counts and shape_open and pad_sites is None:
        for i, kind in _shape_by_counts(out, shape_open).items():
            if kind == "blocker" and allowed is not None and not bool(allowed[kind_index["blocker"], i]):
                continue
            r = out[i]
            if (kind == "blocker") == (r.kind == "blocker") and r.kind in ("pawn", "king", "blocker"):
                continue  # (read so already)
            x, y, lv = r.key
            colour = shape_open[i][0]
            why = (f"{colour} would have more than three markers (each player has three)" if kind == "blocker" else
                   f"{colour} would have more than two blocker boxes (each player has two)")
            out[i] = CellReading(r.key, kind, colour, 0, False, 0.0, None, r.scores, notes=(
                *r.notes, f"the {colour} piece on ({x},{y},{lv}) shows no shape that tells a blocker box from a "
                f"marker; {why}: read as a {'blocker box' if kind == 'blocker' else 'marker'}"), seen=r.seen)
            if kind == "pawn" and i not in crown_check:
                crown_check.append(i)
    crown_check = [i for i in crown_check if out[i].kind in ("pawn", "king") and out[i].colour != "yellow"]
    if crown_check:
        crowned = _crowned(sc, [sites[i] for i in crown_check], cfg)
        for i, king in zip(crown_check, crowned, strict=True):
            out[i] = replace(out[i], kind="king" if king else "pawn")
    yellow = [i for i, r in enumerate(out) if r.kind in ("pawn", "king") and r.colour == "yellow"
              and start_of.get(i, "yellow") == "yellow"]  # (on another's start row it is a king: below)
    if yellow and cfg.yellow_crown > 0:
        relief = _crown_relief(sc, [sites[i] for i in yellow], cfg) if cfg.yellow_crown_relief > 0 \
            else [None] * len(yellow)
        for i, blue, rel in zip(yellow, _crown_blueness(sc, [sites[i] for i in yellow], cfg), relief, strict=True):
            if blue is None:
                continue
            if rel is not None and rel >= cfg.yellow_crown_relief and blue >= 0.0:
                out[i] = replace(out[i], kind="king")
            elif rel is not None and rel < cfg.yellow_crown_flat:
                out[i] = replace(out[i], kind="pawn")  # (a flat top: its blue middle is the lamp's highlight)
            elif cfg.yellow_crown - cfg.yellow_crown_unsure <= blue < cfg.yellow_crown:
                x, y, lv = out[i].key
                out[i] = CellReading(out[i].key, "unseen", None, 0, False, 0.0, None, out[i].scores, notes=(
                    f"a yellow marker stands on ({x},{y},{lv}), but whether it wears a crown (king) or not (pawn) "
                    "could not be told: not read",))
            else:
                out[i] = replace(out[i], kind="king" if blue >= cfg.yellow_crown else "pawn")
    for i in past_hand_g if cfg.past_hand_hue > 0 else ():
        if out[i].kind == "king":  # (a hand's skin over a marker's top looks like a crown's gold)
            x, y, lv = out[i].key
            out[i] = CellReading(out[i].key, "occluded", None, 0, False, 0.0, None, out[i].scores, notes=(
                f"a {out[i].colour} marker stands on ({x},{y},{lv}) beside a hand: whether it wears a crown (king) or "
                "not (pawn) could not be told, not read",))
    for i in reprobed:
        if out[i].kind == "king":  # (a crown seen through a slit under a pad: not told from a pawn's top)
            x, y, lv = out[i].key
            out[i] = CellReading(out[i].key, "unseen", None, 0, False, 0.0, None, out[i].scores, notes=(
                f"a {out[i].colour} marker stands on ({x},{y},{lv}), seen only below the pad above it: whether it "
                "wears a crown (king) or not (pawn) could not be told, not read",))
    if cfg.slit_shade_shift > 0 and game == "gridopolis" and sc.structure is not None and len(sc.structure) \
            and not hand and pad_sites is None:  # (sites on their own pads, not places a pad may stand on)
        t_sh = time.perf_counter()
        _read_by_slit_shade(sc, sites, hyps, kind_index, out, solids_now, reprobed, used, covered, allowed, colours,
                            cfg)
        if timings is not None:
            timings["classify.slit_shade_s"] = timings.get("classify.slit_shade_s", 0.0) + time.perf_counter() - t_sh
    for i, owner in start_of.items():
        r = out[i]
        if r.kind == "pawn" and r.colour in HUES and r.colour != owner:
            # a pawn landing on an opponent's start row is crowned there (docs/rules/gridopolis.md, "Kings"): a
            # marker at rest on another player's kingerizer is a king, whatever its crown showed
            x, y, lv = r.key
            out[i] = replace(r, kind="king", notes=(
                *r.notes, f"the {r.colour} marker on {owner}'s kingerizer ({x},{y},{lv}) showed no crown clearly, "
                f"but a marker on an opponent's start row is a king: read as a king"))
    t4 = time.perf_counter()
    if timings is not None:
        timings["classify.observe_s"] = t1 - t0
        timings["classify.predict_s"] = t2 - t1
        timings["classify.occlusion_s"] = t3 - t2
        timings["classify.decide_s"] = t4 - t3
    return out




def _read_by_slit_shade(sc: _Scene, sites: Sequence[Site], hyps: Sequence[Hypothesis], kind_index: dict[str, int],
                        out: list[CellReading], solids_now: list[F64], reprobed: set[int], used: F64, covered: F64,
                        allowed: npt.NDArray[np.bool_] | None, colours: Sequence[str] | None,
                        cfg: ClassifyBoardConfig) -> None:
    """Gridopolis (session 16, ``slit_shade_*``): a site declined as "unseen" below the next level (a pad more than
    20 mm above it within 30 mm, or seen on few probes) is read from its own pad top, in ``out`` in place.  Where a
    pawn standing there would be seen, the pad top must look as the rest of its seen top does (the same shade, 10 mm
    under the pads above): a piece when it is darker by ``slit_shade_dark`` and its a*b* shifted by
    ``slit_shade_shift`` towards a player's colour (the shift's hue and the colour's own naming the same player; not
    the ``slit_shade_not`` colours: the sky's fill light makes the shade under pads bluish).  Its shape from the pad
    top where only a box would be seen: shifted (``slit_shade_box_shift``, ``slit_shade_box_dark``) a box; with
    ``slit_shade_markers`` a marker where that band looks as the rest of the top (under half of both; a marker showing
    a crown, or yellow -- its crown is not told from one colour -- stays unseen), else not read.  A point of the pad
    top counts where no structure solid, no piece read on another site and no box that may stand on another declined
    site hides it.  Decided twice: the second time the pieces read the first time stand in for those boxes, and a site
    whose reading changes stays unseen."""
    n_s = len(sites)
    xyz = np.array([[st.x_mm, st.y_mm, st.floor_mm] for st in sites], np.float64).reshape(-1, 3)
    st_rows = sc.structure if sc.structure is not None else np.zeros((0, 6))
    near = (np.abs(st_rows[None, :, 1:3] - xyz[:, None, :2]) < 30.0).all(axis=2)
    above = np.asarray((near & (st_rows[None, :, 4] > xyz[:, None, 2] + 20.0)).any(axis=1), bool)
    look = [i for i in range(n_s) if out[i].kind == "unseen" and covered[i] <= 0
            and (above[i] or i in reprobed or used[i] < cfg.min_weight)]
    if not look:
        return
    pawn, box = hyps[kind_index["pawn"]], hyps[kind_index["blocker"]]
    players = [c for c in (colours or HUES) if c in HUES]
    fitted: list[tuple[GridLamp, F64] | None] = []

    def lamp_of() -> tuple[GridLamp, F64] | None:  # (fitted once, and only when a site's pad top is sampled)
        if not fitted:
            lamp = _grid_lamp(sc, sites, out, solids_now)
            fitted.append((lamp, _lamp_boxes(sc, solids_now)) if lamp is not None else None)
        return fitted[0]

    def decide(solids: list[F64], look: list[int]) -> dict[int, tuple[str, str]]:
        g_rows = [r for r in solids if len(r)]
        rows = np.concatenate(g_rows) if g_rows else np.zeros((0, 6))
        owner = np.concatenate([np.full(len(r), j) for j, r in enumerate(solids) if len(r)]) if g_rows \
            else np.zeros(0, np.int64)
        found: dict[int, tuple[str, str]] = {}
        lits: dict[int, tuple[float, float]] = {}
        for i, (lab_in, lab_ref, n_in, n_ref, lab_bx, n_bx) in _slit_shade(
                sc, sites, look, pawn, box, rows, owner,
                min_points=(cfg.slit_shade_points, cfg.slit_shade_box_points),
                lamp_of=lamp_of if cfg.slit_lamp else None, spread=cfg.slit_lamp_spread, correct=cfg.slit_lamp_correct,
                lit_out=lits).items():
            if n_in < cfg.slit_shade_points or n_ref < cfg.slit_shade_points or n_bx < cfg.slit_shade_box_points:
                continue
            if cfg.slit_lamp_gate > 0 and i in lits and abs(lits[i][0] - lits[i][1]) > cfg.slit_lamp_gate:
                continue  # (the lamp lights where the piece would be seen otherwise than the rest: not told)
            shift = lab_in[1:] - lab_ref[1:]
            if math.hypot(float(shift[0]), float(shift[1])) < cfg.slit_shade_shift \
                    or lab_in[0] - lab_ref[0] > -cfg.slit_shade_dark:
                continue
            name = _hue_name(np.array([50.0, shift[0], shift[1]]), cfg, players)
            never = cfg.slit_lamp_not if fitted and fitted[0] is not None else cfg.slit_shade_not
            if name not in players or name in never \
                    or name != _hue_name(np.array([50.0, lab_in[1], lab_in[2]]), cfg, players):
                continue
            b_shift = math.hypot(float(lab_bx[1] - lab_ref[1]), float(lab_bx[2] - lab_ref[2]))
            b_dark = float(lab_ref[0] - lab_bx[0])
            if b_shift >= cfg.slit_shade_box_shift and b_dark >= cfg.slit_shade_box_dark:
                if allowed is None or bool(np.asarray(allowed)[kind_index["blocker"], i]):
                    found[i] = ("blocker", name)
            elif cfg.slit_shade_markers and b_shift < cfg.slit_shade_box_shift / 2 \
                    and b_dark < cfg.slit_shade_box_dark / 2 and name != "yellow":
                found[i] = ("pawn", name)
        return found

    # (a declined site may hold any piece: it hides what a box there would hide)
    maybe = [_solid_rows(box, sites[j]) if out[j].kind in ("unseen", "occluded") else solids_now[j] for j in range(n_s)]
    first = decide(maybe, look)
    if not first:
        return
    again = list(maybe)
    for i, (kind, _) in first.items():
        again[i] = _solid_rows(hyps[kind_index[kind]], sites[i])
    second = decide(again, list(first))
    sure = [i for i, read in first.items() if second.get(i) == read]
    pawns = [i for i in sure if first[i][0] == "pawn"]
    crowned = dict(zip(pawns, _crowned(sc, [sites[i] for i in pawns], cfg), strict=True)) if pawns else {}
    for i in sure:
        if crowned.get(i, False):
            continue  # (a crown seen below the pad above: not told from a pawn's top)
        kind, name = first[i]
        x, y, lv = out[i].key
        out[i] = replace(out[i], kind=kind, colour=name, confidence=0.0, notes=(
            *out[i].notes, f"a {name} {'box' if kind == 'blocker' else 'marker'} on ({x},{y},{lv}) read from the pad "
            "top below the next level alone (darker and more coloured where the piece would be seen than the rest "
            "of the pad top)"))


def _slit_shade(sc: _Scene, sites: Sequence[Site], idx: Sequence[int], pawn: Hypothesis, box: Hypothesis,
                rows: F64, owner: npt.NDArray[np.int64], step_mm: float = 3.0, min_points: tuple[int, int] = (1, 0),
                lamp_of: Callable[[], tuple[GridLamp, F64] | None] | None = None, spread: float = 0.0,
                correct: bool = True, lit_out: dict[int, tuple[float, float]] | None = None
                ) -> dict[int, tuple[F64, F64, int, int, F64, int]]:
    """Gridopolis, session 16: for sites ``idx``, the CIELAB median of the site's own pad top seen where a pawn
    standing there would be seen instead (``in``), where neither a pawn nor a box would be (``ref``) and where only a
    box would be (``box``), with their point counts: {site: (lab_in, lab_ref, n_in, n_ref, lab_box, n_box)} (sites
    with no ``in`` or ``ref`` point left out; ``lab_box`` NaN without a point).  Points on a grid of ``step_mm`` over
    the pad top; a point counts where no structure solid and no other site's piece (``rows`` of ``owner``) hides it
    (the posts a pad above stands on are no structure row: a post seen there counts as pad top).  ``min_points``: the
    fewest ``in`` and ``ref`` points, and ``box`` points, a site needs to be in the result (the other sites' pieces
    are looked for, and the picture sampled, only on the sites the structure alone leaves that many).  With
    ``lamp_of`` (session 17: the picture's lamp and the solids shading the pad tops, asked for only when a site is
    sampled) each point's colour is divided by the light the lamp predicts there: the pad top as it would look fully
    lit, so that "empty" predicts one colour over the top (``correct``); ``lit_out`` receives each site's mean lamp
    share over its ``in`` and ``ref`` points."""
    out: dict[int, tuple[F64, F64, int, int, F64, int]] = {}
    if sc.structure is None or not len(idx):
        return out
    cam = sc.pose.camera_position
    w, h = sc.pose.image_size
    g = np.arange(-19.0 + step_mm / 2, 19.0, step_mm)
    gx, gy = np.meshgrid(g, g)
    n_g = gx.size
    look = np.asarray(idx, np.int64)
    xyz = np.array([[sites[i].x_mm, sites[i].y_mm, sites[i].floor_mm + 0.2] for i in look], np.float64)
    pts = np.repeat(xyz[:, None, :], n_g, axis=1)
    pts[..., 0] += gx.ravel()[None, :]
    pts[..., 1] += gy.ravel()[None, :]
    flat = pts.reshape(-1, 3)
    px = sc.pose.project(flat)
    ok = (px[:, 0] > 2) & (px[:, 0] < w - 3) & (px[:, 1] > 2) & (px[:, 1] < h - 3)
    ends = segments_to_board(cam, flat)
    t_pt = (flat[:, 2] - cam[2]) / np.where(np.abs(ends[:, 2] - cam[2]) < 1e-9, -1e-9, ends[:, 2] - cam[2])
    if not sc.structure[:, 0].any():  # (boxes, the Gridopolis pads: culled by their pixels, as :func:`_observe`)
        hidden = box_ray_hits(cam, ends, sc.structure, t_pt, px, sc.structure_px, behind=False)[0]
    else:
        hidden = np.asarray(np.asarray(hits(cam, flat, sc.structure, t_max=1.0 - 1e-6), bool).any(axis=1), bool)
    ok &= ~hidden
    ok2 = ok.reshape(len(look), n_g)
    thru_p = np.asarray(hits(cam, pts, np.stack([_solid_rows(pawn, sites[i]) for i in look])[:, None]), bool).any(-1)
    thru_b = np.asarray(hits(cam, pts, np.stack([_solid_rows(box, sites[i]) for i in look])[:, None]), bool).any(-1)
    # (the other sites' pieces only hide more points: a site the structure alone leaves too few of is not looked at)
    n_min, n_box_min = max(min_points[0], 1), min_points[1]
    viable = (((ok2 & thru_p).sum(axis=1) >= n_min) & ((ok2 & ~thru_b).sum(axis=1) >= n_min)
              & ((ok2 & thru_b & ~thru_p).sum(axis=1) >= n_box_min))
    ok2[~viable] = False
    for r, i in enumerate(look):
        if not ok2[r].any():
            continue
        s = sites[i]
        # (the other sites' pieces above the pad top, within reach of the rays up to their tops)
        occ = np.zeros((0, 6))
        if len(rows):
            reach = (cam[:2] - xyz[r, :2]) * np.maximum(rows[:, 5:6] - s.floor_mm, 0.0) / max(cam[2] - s.floor_mm, 1.0)
            dxy = rows[:, 1:3] - xyz[r, None, :2]
            near = ((dxy >= np.minimum(0.0, reach) - 20.0 - rows[:, 3:4])
                    & (dxy <= np.maximum(0.0, reach) + 20.0 + rows[:, 3:4])).all(axis=1)
            occ = rows[near & (owner != i) & (rows[:, 5] > s.floor_mm + 0.2)]
        if len(occ):
            ok2[r, ok2[r]] = ~np.asarray(hits(cam, pts[r, ok2[r]], occ, t_max=1.0 - 1e-6), bool).any(axis=1)
    inn, ref, box_only = ok2 & thru_p, ok2 & ~thru_b, ok2 & thru_b & ~thru_p
    sel = (inn | ref | box_only).reshape(-1)
    lab = np.zeros((len(flat), 3))
    lit = np.ones(len(flat))
    fitted_any = False
    if sel.any():
        lin = np.clip(_sample(sc.image, px[sel]) / sc.gain.at(flat[sel, :2]), 0.0, None)
        lamp_boxes = lamp_of() if lamp_of is not None else None
        if lamp_boxes is not None:
            lamp, shade_boxes = lamp_boxes
            fitted_any = True
            lit[sel] = lit_share(flat[sel], lamp, shade_boxes, spread)
            if correct:
                lin = lin / lamp.factor(lit[sel])
        lab[sel] = linear_to_lab(lin)
    lab3 = lab.reshape(len(look), n_g, 3)
    lit2 = lit.reshape(len(look), n_g)
    for r, i in enumerate(look):
        if inn[r].sum() < n_min or ref[r].sum() < n_min or box_only[r].sum() < n_box_min:
            continue
        if lit_out is not None and lamp_of is not None and fitted_any:
            lit_out[int(i)] = (float(lit2[r, inn[r]].mean()), float(lit2[r, ref[r]].mean()))
        out[int(i)] = (_median_rows(lab3[r, inn[r]]), _median_rows(lab3[r, ref[r]]), int(inn[r].sum()),
                       int(ref[r].sum()), _median_rows(lab3[r, box_only[r]]) if box_only[r].any()
                       else np.full(3, np.nan), int(box_only[r].sum()))
    return out


def _lamp_boxes(sc: _Scene, solids_now: Sequence[F64]) -> F64:
    """The solids that may shade a pad top for :mod:`vision.board_lamp`: the structure's boxes (the pads) and the
    pieces read (a cylinder as the box round it)."""
    rows = [np.asarray(sc.structure, np.float64)] if sc.structure is not None else []
    rows += [r for r in solids_now if len(r)]
    return np.concatenate(rows) if rows else np.zeros((0, 6))


def _grid_lamp(sc: _Scene, sites: Sequence[Site], out: Sequence[CellReading], solids_now: Sequence[F64],
               step_mm: float = 10.0) -> GridLamp | None:
    """Gridopolis (session 17, ``slit_lamp``): the lamp fitted to this picture's pad tops
    (:func:`vision.board_lamp.fit_grid_lamp`).  Points on a ``step_mm`` grid over every structure box's top that
    stands on a site read empty or declined (no piece read there), seen from the camera past the structure and the
    pieces read; shaded by the structure and the pieces read."""
    if sc.structure is None or not len(sc.structure) or sc.structure[:, 0].any():
        return None
    st = np.asarray(sc.structure, np.float64)
    read = np.array([[s.x_mm, s.y_mm, s.floor_mm] for s, r in zip(sites, out, strict=True)
                     if r.kind not in ("empty", "unseen", "occluded")], np.float64).reshape(-1, 3)
    same: npt.NDArray[np.bool_] = np.asarray(np.abs(st[:, None, [1, 2, 5]] - read[None, :, :]) < 1.0, bool)
    keep = ~np.any(np.all(same, axis=2), axis=1)
    # (only tops some box above may shade: within 1.8 times its height over the top, sideways)
    rise = st[None, :, 4] - st[:, None, 5]
    reach = (np.abs(st[None, :, 1:3] - st[:, None, 1:3]) <= 1.8 * rise[..., None] + st[None, :, 3:4] + 20.0).all(-1)
    keep &= ((rise > 0.5) & reach).any(axis=1)
    if keep.sum() < 2:
        return None
    g = np.arange(-15.0, 15.5, step_mm)
    gx, gy = np.meshgrid(g, g)
    idx = np.flatnonzero(keep)
    pts = np.repeat(st[idx, None, :][:, :, [1, 2, 5]], gx.size, axis=1)
    pts[..., 0] += gx.ravel()[None, :]
    pts[..., 1] += gy.ravel()[None, :]
    pts[..., 2] += 0.2
    pad = np.repeat(idx, gx.size)
    flat = pts.reshape(-1, 3)
    cam = sc.pose.camera_position
    w, h = sc.pose.image_size
    px = sc.pose.project(flat)
    ok = (px[:, 0] > 2) & (px[:, 0] < w - 3) & (px[:, 1] > 2) & (px[:, 1] < h - 3)
    ends = segments_to_board(cam, flat)
    t_pt = (flat[:, 2] - cam[2]) / np.where(np.abs(ends[:, 2] - cam[2]) < 1e-9, -1e-9, ends[:, 2] - cam[2])
    ok &= ~box_ray_hits(cam, ends, st, t_pt, px, sc.structure_px, behind=False)[0]
    p_rows = [r for r in solids_now if len(r)]
    if p_rows and ok.any():
        pr = np.concatenate(p_rows)
        ok[ok] = ~np.asarray(hits(cam, flat[ok], pr, t_max=1.0 - 1e-6), bool).any(axis=1)
    if ok.sum() < 12:
        return None
    rgb = np.clip(_sample(sc.image, px[ok]) / sc.gain.at(flat[ok, :2]), 0.0, None)
    return fit_grid_lamp(flat[ok], rgb, pad[ok], _lamp_boxes(sc, solids_now))


def _lamp(sc: _Scene, sites: Sequence[Site], stacks: list[int], rows: F64, cfg: ClassifyBoardConfig) -> F64 | None:
    """Bandera: where a lamp casting hard shadows stands (a point 1.2 m from the board's middle), or None.  On
    rings round each stack read (22-70 mm from its middle; points of the light print the camera sees past the
    stacks), the points darker than ``cast_shadow_dark`` x the white-balance fit are set against the shadows the
    stacks (``rows``) would cast from each direction tried (every 30 degrees round and 15 up from 35 degrees, then
    about the best three every 15 and 7.5): the direction whose shadow points are at least half dark and agree
    best with the dark ones (F1 score, at least ``cast_shadow``) is the lamp's."""
    cam = sc.pose.camera_position
    w, h = sc.pose.image_size
    ang = np.radians(np.arange(0.0, 360.0, 24.0))
    rad = np.array([22.0, 38.0, 54.0, 70.0])
    ring = (rad[:, None, None] * np.stack([np.cos(ang), np.sin(ang)], axis=1)[None]).reshape(-1, 2)
    ctr = np.array([[sites[i].x_mm, sites[i].y_mm] for i in stacks])
    q = (ctr[:, None, :] + ring[None]).reshape(-1, 2)
    x0, y0, x1, y1 = sc.pose.spec.extent_mm
    q = q[(q[:, 0] > x0 + 2) & (q[:, 0] < x1 - 2) & (q[:, 1] > y0 + 2) & (q[:, 1] < y1 - 2)]
    if len(q) < 20:
        return None
    q3 = np.column_stack([q, np.zeros(len(q))])
    px = sc.pose.project(q3)
    ok = (px[:, 0] > 2) & (px[:, 0] < w - 3) & (px[:, 1] > 2) & (px[:, 1] < h - 3)
    ok &= ~np.asarray(hits(cam, q3, rows[None, :, :]), bool).any(axis=1)  # (no stack in front of it)
    exp, on_board = _expected(sc.app, q)
    ok &= on_board & (exp.min(axis=1) > 0.3)  # (the light print: paper and pale zones)
    if ok.sum() < 20:
        return None
    j = np.nonzero(ok)[0]
    j = j[:: max(1, -(-len(j) // cfg.cast_shadow_points))]  # (evenly thinned to a few hundred: speed)
    q3 = q3[j]
    r = np.log(np.maximum(_sample(sc.image, px[j]), 1e-4) / np.maximum(exp[j], 1e-4)) - np.log(sc.gain.at(q[j]))
    dark = r.mean(axis=1) < math.log(cfg.cast_shadow_dark)
    if dark.sum() < 6:
        return None
    mid = np.array([(x0 + x1) / 2, (y0 + y1) / 2, 0.0])
    n_dark = int(dark.sum())

    ground = GroundShade(q3, rows)  # (the same answers as hits(lamp, q3, rows[None]).any(axis=1), quicker)

    def fits(keys: list[tuple[float, float]]) -> list[tuple[float, F64]]:
        """The score and place of the lamp in each direction (azimuth, elevation in degrees); the lights' shadow
        tests in one batch."""
        lamps = [mid + 1200.0 * np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)])
                 for az, el in ((math.radians(a), math.radians(e)) for a, e in keys)]
        out = []
        for lamp, shade in zip(lamps, ground.shaded_many(np.array(lamps)), strict=True):
            n_s = int(shade.sum())
            both = int((shade & dark).sum())
            ok = n_s >= 6 and both >= 0.5 * n_s
            out.append(((2 * both / (n_s + n_dark) if ok else 0.0), lamp))
        return out

    # every 30 degrees round and 15 up, then about the best three every 15 and 7.5
    first = [(float(a), float(e)) for a in range(0, 360, 30) for e in (35.0, 50.0, 65.0, 80.0)]
    tried = dict(zip(first, fits(first), strict=True))
    more: list[tuple[float, float]] = []
    for a0, e0 in sorted(tried, key=lambda k: -tried[k][0])[:3]:
        for da in (-15.0, 0.0, 15.0):
            for de in (-7.5, 0.0, 7.5):
                k = ((a0 + da) % 360.0, min(e0 + de, 85.0))
                if k not in tried and k not in more:
                    more.append(k)
    tried.update(zip(more, fits(more), strict=True))
    f_best, lamp_best = max(tried.values(), key=lambda t: t[0])
    return lamp_best if f_best >= cfg.cast_shadow else None


def _cast_shadows(sc: _Scene, sites: Sequence[Site], hyps: Sequence[Hypothesis], choice: npt.NDArray[np.int64],
                  scores: F64, weight: F64, pred: npt.NDArray[np.bool_], piece: F64, ends: F64,
                  covered: F64, cfg: ClassifyBoardConfig) -> list[int]:
    """Bandera: a hard lamp's shadow of a stack lies on the next squares, as dark as a black cube and tinted by
    the room's other light: a plain stack read there is decided again without the probes whose rays end in the
    shadow of the other stacks read (the lamp from :func:`_lamp`), when enough remain.  ``choice`` and ``scores``
    are updated in place; returns the sites changed."""
    stacks = [i for i in range(len(sites)) if hyps[int(choice[i])].cubes > 0 and not covered[i]]
    if len(stacks) < 2 or covered.any():  # (a hand's shadow, not modelled, would mislead the lamp's search)
        return []
    per = [_solid_rows(hyps[int(choice[i])], sites[i]) for i in stacks]
    rows = np.concatenate(per)
    owner = np.concatenate([np.full(len(r), i) for r, i in zip(per, stacks, strict=True)])
    if cfg.cast_shadow_tall > 0 and cfg.flag_columns:
        # what may stand on a royal tower (two cubes on the paved columns, docs/rules/bandera.md sections 2-3): its
        # character and its flag, taller than any cube, cast the longest shadows -- onto the next squares
        g = cfg.geometry
        tall = [(i, sites[i].floor_mm + 2 * g.cube_mm) for i in stacks
                if hyps[int(choice[i])].cubes == 2 and sites[i].key[0] in cfg.flag_columns]
        if tall:
            t_rows = np.array([r for i, top in tall for r in (
                [0.0, sites[i].x_mm, sites[i].y_mm, g.cube_mm / 2, top, top + g.character_height],
                [1.0, sites[i].x_mm, sites[i].y_mm, g.flag_reach, top + g.flag_banner[0], top + g.flag_banner[1]])])
            rows = np.concatenate([rows, t_rows])
            owner = np.concatenate([owner, np.repeat([i for i, _ in tall], 2)])
    n_cubes = sum(len(r) for r in per)
    lamp = _lamp(sc, sites, stacks, rows if cfg.cast_shadow_tall >= 2 else rows[:n_cubes], cfg)
    if lamp is None:
        return []
    changed: list[int] = []
    cands: list[tuple[int, int, F64]] = []
    for i in stacks:
        k = int(choice[i])
        if scores[k, i] < scores[:, i].max():
            continue  # (read so by its sockets or outline, not its probes: left alone)
        use = weight[i] > 0
        others = rows[owner != i]
        # (the probes in the others' shadow: tested once, for the rescoring and the count below)
        in_shadow = np.asarray(np.asarray(hits(lamp, ends[i][use], others[None, :, :]), bool).any(axis=1), bool)
        sc_i = _rescore_without(i, lamp, others, weight, pred, piece, ends, cfg, hit=in_shadow)
        if sc_i is None and n_cubes < len(rows):  # (too few left out of the tall ones' shadows: the cubes' only)
            sc_i = _rescore_without(i, lamp, rows[:n_cubes][owner[:n_cubes] != i], weight, pred, piece, ends, cfg)
        if (sc_i is None or hyps[int(np.argmax(sc_i))].cubes > 0) and cfg.cast_shadow_whole > 0:
            # every probe but a few in the others' shadow: what the probes saw is explained by the shadow alone
            n_hit = int(in_shadow.sum())
            if use.sum() and n_hit >= cfg.cast_shadow_whole * use.sum() \
                    and _shade_explains(sc, sites[i], ends[i][use],
                                    np.concatenate([rows[:n_cubes][owner[:n_cubes] != i], rows[owner == i][:1]]), cfg):
                sc_i = np.zeros(len(hyps))
                sc_i[0] = 1.0
        if sc_i is None:
            continue
        new = int(np.argmax(sc_i))
        if hyps[new].cubes == 0:  # (only a stack that vanishes: fewer probes tell a cube count worse)
            cands.append((i, new, sc_i))
    if cands and cfg.cast_shadow_sockets:
        # a cube's socket seen on one of its faces: a cube stands there, in the shadow or not
        idx = np.array([i for i, _, _ in cands], np.int64)
        r_c, o_c = _chosen_solids(hyps, choice, sites, idx.tolist())
        shows = np.asarray(_sockets(sc, sites, idx, r_c, o_c, cfg).any(axis=1), bool).tolist()
        cands = [c for c, sh in zip(cands, shows, strict=True) if not sh]
    for i, new, sc_i in cands:
        choice[i] = new
        scores[:, i] = sc_i
        changed.append(i)
    return changed


def _shade_explains(sc: _Scene, site: Site, ends: F64, hide: F64, cfg: ClassifyBoardConfig) -> bool:
    """Bandera: does the print in a shadow's light explain what the probes of ``site`` (ray ends ``ends`` on the
    board) see?  That light is measured on the light print round the site (points within ``cast_shadow_local_mm``)
    that the camera sees past the solids ``hide`` (the other stacks' cubes, and one cube on the site: a cube there
    would hide what is behind it) and that is darker than ``cast_shadow_dark`` x the white-balance fit: the median
    of the seen over the print's expected colour, per channel (linear), on ``cast_shadow_local_points`` points or
    more.  The probes are then compared with the print in that light: at most ``cast_shadow_piece`` of them still a
    piece -- a shadow of the next stacks, not a cube (whose faces bring their own colour)."""
    cam = sc.pose.camera_position
    w, h = sc.pose.image_size
    r = cfg.cast_shadow_local_mm
    g = np.arange(-r, r + 1e-6, 5.0)
    gx, gy = np.meshgrid(g, g)
    q = np.column_stack([site.x_mm + gx.ravel(), site.y_mm + gy.ravel(), np.full(gx.size, site.floor_mm)])
    exp_q, on_board = _expected(sc.app, q[:, :2])
    px = sc.pose.project(q)
    ok = on_board & (px[:, 0] > 2) & (px[:, 0] < w - 3) & (px[:, 1] > 2) & (px[:, 1] < h - 3)
    ok &= ~np.asarray(hits(cam, q, hide[None, :, :]), bool).any(axis=1)
    ok &= exp_q.min(axis=1) > 0.3  # (the light print: paper and pale zones)
    ratio = _sample(sc.image, px) / sc.gain.at(q[:, :2]) / np.maximum(exp_q, 1e-4)
    ok &= ratio.mean(axis=1) < cfg.cast_shadow_dark
    if ok.sum() < cfg.cast_shadow_local_points:
        return False
    light = _median_rows(ratio[ok])
    exp_e, _ = _expected(sc.app, ends[:, :2])
    seen_e = _sample(sc.image, sc.pose.project(ends)) / sc.gain.at(ends[:, :2])
    piece = _pieceness(linear_to_lab(np.clip(seen_e, 0.0, None)), linear_to_lab(exp_e * light[None, :]), cfg)
    return bool(np.mean(piece > 0.5) <= cfg.cast_shadow_piece)


def _rescore_without(i: int, source: F64, rows: F64, weight: F64, pred: npt.NDArray[np.bool_], piece: F64,
                     ends: F64, cfg: ClassifyBoardConfig, also: npt.NDArray[np.bool_] | None = None,
                     hit: npt.NDArray[np.bool_] | None = None) -> F64 | None:
    """Site ``i``'s hypothesis scores again without its probes whose rays from ``source`` (the camera, or a
    lamp) meet one of the solids ``rows`` (``hits``' layout), nor the probes ``also`` (P,); ``None`` when no probe
    is left out, or too few are left to read it (``cfg.min_weight``).  ``hit``: which of the used probes (weight
    above 0) meet one of ``rows``, when the caller has tested it already."""
    use = weight[i] > 0
    if not use.any():
        return None
    if hit is None:
        hit = np.asarray(np.asarray(hits(source, ends[i][use], rows[None, :, :]), bool).any(axis=1), bool) \
            if len(rows) else np.zeros(int(use.sum()), bool)
    hit = np.array(hit, bool)  # (a copy: ``also`` is added to it)
    if also is not None:
        hit |= also[use]
    if not hit.any():
        return None
    w = weight[i].copy()
    w[np.nonzero(use)[0][hit]] = 0.0
    if w.sum() < cfg.min_weight * len(w):
        return None
    return np.asarray(_scores(pred[:, i:i + 1], piece[i:i + 1], w[None, :], cfg.empty_bias)[:, 0], np.float64)


def _beside_tall(sites: Sequence[Site], hyps: Sequence[Hypothesis], choice: npt.NDArray[np.int64], scores: F64,
                 weight: F64, pred: npt.NDArray[np.bool_], piece: F64, ends: F64, cam: F64,
                 char_of: dict[int, tuple[str | None, float, float] | None], flag_of: dict[int, str | None],
                 covered: F64, cfg: ClassifyBoardConfig, lab_o: F64 | None = None) -> list[int]:
    """Bandera: plain stacks next to a royal tower or a stack carrying a character, decided again without the
    probes whose rays meet what stands above that neighbour's cubes (its character; with ``beside_tall`` 2 also
    its flag's room; with 3 the flag's room only on the probes of the flag's colour, ``lab_o``): no hypothesis has
    those solids, so a neighbour's probes seeing them saw a stack.  ``choice``, ``scores`` and ``char_of`` are
    updated in place; returns the sites changed."""
    g = cfg.geometry
    c = g.cube_mm
    tall: dict[int, list[list[float]]] = {}
    banner: dict[int, tuple[list[float], str]] = {}  # (``beside_tall`` 3) a royal tower's flag room, and its colour
    for j in range(len(sites)):
        cubes = 2 if flag_of.get(j) is not None else hyps[int(choice[j])].cubes
        if cubes == 0:
            continue
        top = sites[j].floor_mm + cubes * c
        rows: list[list[float]] = []
        ch = char_of.get(j)
        if ch is not None:
            rows.append([1.0, ch[1], ch[2], g.character_radius, top, top + g.character_height])
        if flag_of.get(j) is not None:
            if hyps[int(choice[j])].cubes == 1 or cfg.upper_colour > 0:
                # (a royal tower read as one cube: its upper cube; or one read as two after the probes' weights were
                # set, by ``upper_colour``: the probes its upper cube hides were still weighed)
                rows.append([0.0, sites[j].x_mm, sites[j].y_mm, c / 2, top - c, top])
            if cfg.beside_tall >= 3 and lab_o is not None:
                # (the banner's heights only: the pole is no player's colour)
                banner[j] = ([1.0, sites[j].x_mm, sites[j].y_mm, g.flag_reach, top + g.flag_banner[0],
                              top + g.flag_banner[1]], str(flag_of[j]))
            elif cfg.beside_tall >= 2:
                rows.append([1.0, sites[j].x_mm, sites[j].y_mm, g.flag_reach, top, top + g.flag_height])
        if rows or j in banner:
            tall[j] = rows
    if not tall:
        return []
    where = {(int(s.key[0]), int(s.key[1])): j for j, s in enumerate(sites)}
    seen_c = Counter(f[0] for f in char_of.values() if f is not None)  # (before any is changed here)
    changed: list[int] = []
    for i, s in enumerate(sites):
        k = int(choice[i])
        if hyps[k].cubes == 0 or flag_of.get(i) is not None or covered[i] > 0:
            continue
        nbr = [where[(int(s.key[0]) + dx, int(s.key[1]) + dy)] for dx in (-1, 0, 1) for dy in (-1, 0, 1)
               if (dx, dy) != (0, 0) and (int(s.key[0]) + dx, int(s.key[1]) + dy) in where]
        rows_n = [r for j in nbr if j in tall for r in tall[j]]
        flags_n = [banner[j] for j in nbr if j in banner]
        if not rows_n and not flags_n:
            continue
        also = None
        if flags_n and lab_o is not None:
            # the probes whose rays meet a neighbour's flag room and that show a piece of that flag's colour (its
            # banner; not the print, which is paved in the players' colours)
            use = weight[i] > 0
            also = np.zeros(len(weight[i]), bool)
            if use.any():
                names = np.array(_hue_names(lab_o[i][use], cfg, None), dtype=object)
                f_hit = np.asarray(hits(cam, ends[i][use], np.array([r for r, _ in flags_n])[None]), bool)  # (U, F)
                same = np.stack([names == c for _, c in flags_n], axis=1)
                drop = (f_hit & same).any(axis=1) & (piece[i][use] > 0.5)
                own_c = char_of.get(i)
                if own_c is not None and drop.any() and seen_c[own_c[0]] < 2:
                    # (not the probes on the site's own character, read there and on no other stack: it may be of
                    # that colour too; one read on two stacks may be the banner, seen over both)
                    top_i = s.floor_mm + hyps[k].cubes * c
                    drop &= ~np.asarray(hits(cam, ends[i][use], np.array(
                        [[[1.0, own_c[1], own_c[2], g.character_radius, top_i, top_i + g.character_height]]])),
                        bool)[:, 0]
                also[np.nonzero(use)[0]] = drop
        sc_i = _rescore_without(i, cam, np.array(rows_n).reshape(-1, 6), weight, pred, piece, ends, cfg, also)
        if sc_i is None:
            continue
        new = int(np.argmax(sc_i))
        if new != k:
            choice[i] = new
            scores[:, i] = sc_i
            if hyps[new].cubes == 0:
                char_of.pop(i, None)
            changed.append(i)
    return changed


def _character_flag_twin(sites: Sequence[Site], char_of: dict[int, tuple[str | None, float, float] | None],
                         flag_of: dict[int, str | None], by_char: dict[int, str]) -> None:
    """One character per player (docs/rules/bandera.md, section 1), each starting on its own royal tower
    (section 3): a character read on a royal tower (flag ``f``) in another colour ``c`` while ``c``'s
    character is read on another stack too, and ``f``'s nowhere, is ``f``'s -- its colour misread
    (lit, shaded or seen against the neighbour's banner).  Changes ``char_of`` in place (a note in
    ``by_char``).  When ``f``'s character is read elsewhere too, nothing is changed."""
    seen: dict[str, list[int]] = {}
    for i, g in char_of.items():
        if g is not None and g[0] is not None:
            seen.setdefault(g[0], []).append(i)
    for i, f in sorted(flag_of.items()):
        got = char_of.get(i)
        if f is None or got is None or got[0] is None or got[0] == f:
            continue
        c = got[0]
        if len(seen.get(c, [])) < 2 or seen.get(f):
            continue
        char_of[i] = (f, got[1], got[2])
        seen[c].remove(i)
        seen.setdefault(f, []).append(i)
        x, y = sites[i].key[0], sites[i].key[1]
        by_char[i] = (f"a {c} character was read on {f}'s royal tower at ({x},{y}) and on another stack, and {f}'s "
                      f"nowhere: taken to be {f}'s (one character per player)")


def _character_own_royal(sites: Sequence[Site], char_of: dict[int, tuple[str | None, float, float] | None],
                         flag_of: dict[int, str | None], dropped: dict[int, str],
                         top_seen: dict[int, F64] | None = None, cfg: ClassifyBoardConfig | None = None,
                         strength: dict[int, tuple[int, int]] | None = None) -> None:
    """One character per player (docs/rules/bandera.md, section 1), each starting on its own royal tower
    (section 3): a character of colour ``c`` read on two stacks, one of them ``c``'s royal tower (its flag read)
    and the other a plain stack, is the royal tower's -- the other is something of that colour seen over the
    stack (a neighbour's character or banner behind it, a tinted patch); its character is dropped (a note in
    ``dropped``).  Run after ``character_once_mm``, which gives a twin standing in the middle of a neighbouring
    stack's top to that stack.  (Development: the royal tower's was right in 7 of 9 such pairs.)"""
    seen: dict[str, list[int]] = {}
    for i, g in char_of.items():
        if g is not None and g[0] is not None:
            seen.setdefault(g[0], []).append(i)
    for c, where in sorted(seen.items()):
        if len(where) != 2:
            continue
        own = [i for i in where if flag_of.get(i) == c]
        plain = [i for i in where if flag_of.get(i) is None]
        if len(own) != 1 or len(plain) != 1:
            continue
        j = plain[0]
        xo, yo = sites[own[0]].key[0], sites[own[0]].key[1]
        x, y = sites[j].key[0], sites[j].key[1]
        got = char_of[j]
        assert got is not None
        if cfg is not None and cfg.character_own_plain_mm > 0 and top_seen is not None and j in top_seen \
                and c in HUES and strength is not None and strength.get(j, (0, 0))[0] >= cfg.character_own_plain_n \
                and math.hypot(got[1] - sites[j].x_mm, got[2] - sites[j].y_mm) <= cfg.character_own_plain_mm:
            # ... unless the plain stack's is seen clearly (``character_own_plain_n`` probes), standing in the middle
            # of its top, and its top's own colour, one
            # that cannot pass for that player's (grey, or of a hue far from it), is seen round it on a good share of
            # the probes over the top: then the royal tower's is its banner, of the same colour, seen where a
            # character would stand (session 15)
            lab_j = top_seen[j]
            h_j = np.degrees(np.arctan2(lab_j[:, 2], lab_j[:, 1]))
            other = (np.hypot(lab_j[:, 1], lab_j[:, 2]) < cfg.min_chroma) \
                | (np.abs((h_j - HUES[c] + 180.0) % 360.0 - 180.0) > cfg.character_own_plain_deg)
            if other.mean() >= cfg.character_own_plain_share:
                char_of[own[0]] = None
                dropped[own[0]] = (f"a {c} character was seen on {c}'s royal tower at ({xo},{yo}) and in the middle "
                                   f"of ({x},{y}), a cube that cannot pass for {c}: taken to be ({x},{y})'s (one "
                                   f"character per player), the royal tower's taken for its banner")
                continue
        char_of[j] = None
        dropped[j] = (f"a {c} character was seen over ({x},{y}) and on {c}'s royal tower at ({xo},{yo}): taken to be "
                      f"the royal tower's (one character per player), none read on ({x},{y})")


def _flags_out_of_picture(sc: _Scene, sites: Sequence[Site], cfg: ClassifyBoardConfig) -> dict[str, tuple[int, int]]:
    """Bandera: the player colours whose royal tower may stand (on its rail, ``bandera_rails_for``:
    docs/rules/bandera.md, set-up and "Paved squares") on a square where its banner (``flag_banner`` over two cubes, out
    to ``flag_reach`` from the middle) would be outside the picture or within ``character_seats_unseen_px`` of its
    edge, each with the first such square: finding no flag of that colour says nothing of whether that player
    plays."""
    g = cfg.geometry
    w_i, h_i = sc.pose.image_size
    m = cfg.character_seats_unseen_px
    at = {(int(s.key[0]), int(s.key[1])): s for s in sites}
    ang = np.linspace(0.0, 2.0 * np.pi, 8, endpoint=False)
    out: dict[str, tuple[int, int]] = {}
    for colour, rail in sorted(bandera_rails_for(()).items()):
        for sq in sorted(rail):
            st = at.get(sq)
            if st is None:
                continue
            top = st.floor_mm + 2 * g.cube_mm
            pts = np.array([(st.x_mm + r * math.cos(a), st.y_mm + r * math.sin(a), top + z)
                            for z in g.flag_banner for r in (0.0, 0.5 * g.flag_reach) for a in ang])
            px = sc.pose.project(pts)
            inside = (px[:, 0] >= m) & (px[:, 0] <= w_i - 1 - m) & (px[:, 1] >= m) & (px[:, 1] <= h_i - 1 - m)
            if not inside.all():
                out[colour] = sq
                break
    return out


def _character_seats(sites: Sequence[Site], char_of: dict[int, tuple[str | None, float, float] | None],
                     flag_of: dict[int, str | None], dropped: dict[int, str],
                     unseen: dict[str, tuple[int, int]] | None = None) -> None:
    """Bandera: the players sit in the order blue, red, green, yellow (a game of n players has the first n:
    docs/rules/bandera.md, sections 1 and 3; ``engine.bandera.board.DEFAULT_NAMES``), each with a flag on its royal
    tower until it is captured (section 7).  A character read in the colour of a seat after every flag read (and
    after red: two players at least) is no player's: a cube's top or a hand's skin taken for a player's plastic
    (orange and wood cubes for yellow).  Its character is dropped, with a note (``dropped``).  Run once every flag is
    decided.  With ``unseen`` (``_flags_out_of_picture``), a character whose colour's royal tower may stand where its
    banner is not in the picture is kept (session 18)."""
    from engine.bandera.board import DEFAULT_NAMES

    flags = [DEFAULT_NAMES.index(f) for f in flag_of.values() if f is not None and f in DEFAULT_NAMES]
    last = max([1, *flags])
    for i, g in list(char_of.items()):
        if g is None or g[0] is None or g[0] not in DEFAULT_NAMES or DEFAULT_NAMES.index(g[0]) <= last:
            continue
        if unseen is not None and g[0] in unseen:
            continue
        char_of[i] = None
        x, y = sites[i].key[0], sites[i].key[1]
        seen = ", ".join(DEFAULT_NAMES[j] for j in sorted(set(flags))) or "none"
        dropped[i] = (f"a {g[0]} character was seen over ({x},{y}), but no flag of {g[0]} or of a seat after it is "
                      f"read (flags read: {seen}): {g[0]} is taken not to play, none read on ({x},{y})")


def _flag_twice(sites: Sequence[Site], hyps: Sequence[Hypothesis], choice: npt.NDArray[np.int64],
                flag_of: dict[int, str | None], covered: F64) -> dict[int, str]:
    """Bandera: one flag per player, on its one royal tower (docs/rules/bandera.md, sections 1 and 3).  A flag colour
    read on two stacks or more is on one of them at most; which one cannot be told (on development the stack with
    the most flag probes of that colour was the right one in 3 of 7 such scenes): each is returned with a note, to
    be declined."""
    on: dict[str, list[int]] = {}
    for i, f in sorted(flag_of.items()):
        if f is not None and hyps[int(choice[i])].cubes > 0 and not covered[i] > 0:
            on.setdefault(f, []).append(i)
    out: dict[int, str] = {}
    for f, where in on.items():
        if len(where) < 2:
            continue
        at = ", ".join(f"({sites[i].key[0]},{sites[i].key[1]})" for i in where)
        for i in where:
            out[i] = (f"{f}'s flag is seen on {at}, but {f} has one royal tower: which one carries it cannot be "
                      f"told: not read")
    return out


def _royal_missing(sites: Sequence[Site], hyps: Sequence[Hypothesis], choice: npt.NDArray[np.int64], scores: F64,
                   char_of: dict[int, tuple[str | None, float, float] | None], flag_of: dict[int, str | None],
                   covered: F64, cfg: ClassifyBoardConfig) -> dict[int, str]:
    """Bandera: one royal tower per player, on its paved squares (docs/rules/bandera.md, sections 1-3 and 7).  The
    players are the colours seen on characters and flags and the seats before theirs (as ``_royal_per_player``).
    For a player whose royal tower (its flag) is read nowhere, the squares of its rail read empty where two cubes
    explain the probes better than nothing by ``royal_missing`` or more may hold it, faint (the weak-cube rule or
    the tinted-patch test emptied it) and its flag unseen: they are returned with a note, to be declined.  (A
    captured flag's player has no royal tower: its rail's squares are then empty, and two cubes explain nothing
    there.)"""
    from engine.bandera.board import DEFAULT_NAMES

    seen = {f[0] for f in char_of.values() if f is not None and f[0] is not None}
    seen |= {f for f in flag_of.values() if f is not None}
    top = max((DEFAULT_NAMES.index(c) for c in seen if c in DEFAULT_NAMES), default=-1)
    rails = bandera_rails_for(seen)
    flagged = {f for i, f in flag_of.items() if f is not None and hyps[int(choice[i])].cubes > 0}
    two = next(j for j, h in enumerate(hyps) if h.cubes == 2)
    empty = next(j for j, h in enumerate(hyps) if not h.solids)
    where = {(int(s.key[0]), int(s.key[1])): i for i, s in enumerate(sites)}
    whose: dict[int, list[str]] = {}
    for p in DEFAULT_NAMES[:max(2, top + 1)]:
        if p in flagged:
            continue
        for sq in sorted(rails.get(p, frozenset())):
            i = where.get(sq, -1)
            if i >= 0 and not hyps[int(choice[i])].solids and not covered[i] > 0 \
                    and float(scores[two, i] - scores[empty, i]) >= cfg.royal_missing:
                whose.setdefault(i, []).append(p)
    out: dict[int, str] = {}
    for i, ps in whose.items():
        x, y = sites[i].key[0], sites[i].key[1]
        gain = float(scores[two, i] - scores[empty, i])
        out[i] = (f"{' or '.join(q + chr(39) + 's' for q in ps)} royal tower is read nowhere, and two cubes explain "
                  f"({x},{y}) on its paved squares better than nothing (by {gain:.2f}): it may stand there, faint, "
                  f"its flag unseen: not read")
    return out


def _covered_sites(sc: _Scene, sites: Sequence[Site], tallest: float, cfg: ClassifyBoardConfig,
                   mask_out: list[npt.NDArray[np.bool_]] | None = None, skin_out: list[F64] | None = None) -> F64:
    """Share (0..1) of each site's view that a hand or arm covers.  Skin is told from the pieces by
    colour (skin hues, moderate chroma, and not the print there) *and* size: a hand is a blob several
    cells large in the picture, a cube or token is not.  Only the board's part of the picture is
    examined (the table around it may be any colour: wood is skin-coloured), at 1/``cover_scale``.
    ``mask_out`` (if given) receives the hand's pixels in that shrunk picture, when a hand is found, and
    ``skin_out`` (if given) the median CIELAB colour of its skin pixels."""
    out = np.zeros(len(sites))
    got = _hand_mask(sc, cfg)
    if got is None:
        return out
    mask, skin_lab = got
    if mask_out is not None:
        mask_out.append(mask)
    if skin_out is not None and skin_lab is not None:
        skin_out.append(skin_lab)
    f = cfg.cover_scale
    hh, ww = mask.shape
    c = sc.pose.spec.cell_mm
    zs = np.linspace(0.0, tallest, 6)
    offs = np.array([[0, 0], [-0.3, -0.3], [0.3, -0.3], [0.3, 0.3], [-0.3, 0.3]]) * c
    ctr = np.array([[s.x_mm, s.y_mm, s.floor_mm] for s in sites]).reshape(-1, 1, 1, 3)
    pts = (ctr + np.stack(np.broadcast_arrays(offs[:, None, 0], offs[:, None, 1], zs[None, :]), axis=-1)[None]
           ).reshape(-1, 3)
    px = sc.pose.project(pts) / f
    xi, yi = np.round(px[:, 0]).astype(int), np.round(px[:, 1]).astype(int)
    inside = (xi >= 0) & (xi < ww) & (yi >= 0) & (yi < hh)
    hit = np.zeros(len(pts), bool)
    hit[inside] = mask[yi[inside], xi[inside]]
    share = hit.reshape(len(sites), -1).mean(axis=1)
    return np.where(share >= cfg.cover_share, share, 0.0)


def _hand_mask(sc: _Scene, cfg: ClassifyBoardConfig) -> tuple[npt.NDArray[np.bool_], F64 | None] | None:
    """The hand :func:`_covered_sites` finds in ``sc`` with ``cfg``: its pixels in the picture shrunk
    ``cover_scale`` times (read-only) and its skin's median CIELAB colour (None: no skin pixel on it); None
    when no hand is found.  Computed once per picture and config (kept in ``sc.hands``, the config as key):
    every reading of the sites of one picture finds the same hand."""
    try:
        return sc.hands[cfg]  # type: ignore[no-any-return]
    except KeyError:
        pass
    except TypeError:  # (a config holding something unhashable: not kept)
        return _find_hand(sc, cfg)
    found = _find_hand(sc, cfg)
    sc.hands[cfg] = found
    return found


def _find_hand(sc: _Scene, cfg: ClassifyBoardConfig) -> tuple[npt.NDArray[np.bool_], F64 | None] | None:
    """:func:`_hand_mask`, computed: the skin pixels (:func:`_skin_pixels`, kept per picture), then the hand made
    of them (fingers grouped with ``cover_join_px``)."""
    key = ("skin", replace(cfg, cover_join_px=0, cover_join_aspect=0.0))
    try:  # (the skin found does not depend on how blobs are joined: Bandera's hand with and without the grouping)
        got = sc.hands[key]
    except KeyError:
        got = sc.hands[key] = _skin_pixels(sc, cfg)
    except TypeError:  # (a config holding something unhashable: not kept)
        got = _skin_pixels(sc, cfg)
    if got is None:
        return None
    skin, min_area, j, keep, lab, rows_i, cols_i = got
    joined = skin
    if cfg.cover_join_px > 0:
        # fingers apart, each a strip narrower than a cube, are one hand: blobs this close are grouped
        # (their skin pixels counted together), and the dark gaps between them are covered as well
        k = 2 * cfg.cover_join_px + 1
        if cfg.cover_join_aspect > 0:
            skin = _finger_blobs(skin, cfg.cover_join_aspect, min_area)
        joined = np.asarray(cv2.morphologyEx(skin, cv2.MORPH_CLOSE, np.ones((k, k), np.uint8)), np.uint8)
    n, comp, stats, _ = cv2.connectedComponentsWithStats(joined, connectivity=8)
    if n <= 1:
        return None
    big = np.zeros(n, bool)
    area = np.bincount(comp.ravel(), weights=skin.ravel().astype(np.float64), minlength=n) \
        if cfg.cover_join_px > 0 else stats[:, cv2.CC_STAT_AREA]
    big[1:] = area[1:] > min_area
    if not big.any():
        return None
    mask = big[comp]
    mask.setflags(write=False)
    on_hand = j[keep][mask[rows_i[j[keep]], cols_i[j[keep]]]]
    return mask, (_median_rows(lab[on_hand]) if len(on_hand) else None)


def _skin_pixels(sc: _Scene, cfg: ClassifyBoardConfig) -> tuple[npt.NDArray[np.uint8], float, npt.NDArray[np.int64],
                                                                 npt.NDArray[np.bool_], F64, npt.NDArray[np.int64],
                                                                 npt.NDArray[np.int64]] | None:
    """The skin :func:`_find_hand` groups into a hand: the skin mask in the shrunk picture (opened), the least
    area of a hand (shrunk pixels), and of the board's pixels (``rows_i``, ``cols_i``; CIELAB ``lab``) the skin
    candidates ``j`` and which of them were kept (``keep``); None when too few pixels or candidates.  Uses no
    ``cover_join_*`` setting (read-only arrays, kept per picture)."""
    img = sc.image
    f = cfg.cover_scale
    hh, ww = img.shape[0] // f, img.shape[1] // f
    x0, y0, x1, y1 = sc.pose.spec.extent_mm
    outline = sc.pose.project(np.array([[x0, y0, 0.0], [x1, y0, 0.0], [x1, y1, 0.0], [x0, y1, 0.0]])) / f
    region = outline
    top = None
    if cfg.cover_above_mm > 0 and sc.table_lab is not None:
        # the fingers of a hand over the board's far part are seen against the table beyond the
        # board's edge: the picture of the board's volume (up to the height of the tallest piece)
        # is looked at, where the board is not seen only where the picture differs from the table
        top = sc.pose.project(np.array([[x0, y0, cfg.cover_above_mm], [x1, y0, cfg.cover_above_mm],
                                        [x1, y1, cfg.cover_above_mm], [x0, y1, cfg.cover_above_mm]])) / f
        region = np.concatenate([outline, top])
    # only the board's part of the picture is shrunk (whole blocks of f x f pixels: the same values
    # as shrinking the whole picture)
    lim = np.array([ww, hh])
    bx0, by0 = (int(v) for v in np.clip(np.floor(region.min(axis=0)).astype(np.int64) - 1, 0, lim))
    bx1, by1 = (int(v) for v in np.clip(np.ceil(region.max(axis=0)).astype(np.int64) + 2, 0, lim))
    small: U8 = np.zeros((hh, ww, 3), np.uint8)
    if bx1 > bx0 and by1 > by0:
        small[by0:by1, bx0:bx1] = cv2.resize(img[by0 * f:by1 * f, bx0 * f:bx1 * f], (bx1 - bx0, by1 - by0),
                                             interpolation=cv2.INTER_AREA)
    board = np.zeros((hh, ww), np.uint8)
    cv2.fillConvexPoly(board, np.round(outline).astype(np.int32), 1)
    off_board = None
    if top is not None:
        vol = np.zeros((hh, ww), np.uint8)
        cv2.fillConvexPoly(vol, cv2.convexHull(np.round(region).astype(np.int32)), 1)
        off_board = (vol > 0) & (board == 0)
        board = np.asarray(np.maximum(board, vol), np.uint8)
    # a hand's size is physical, not a number of cells (Gridopolis cells are 50 mm, Bandera's 32)
    a = math.sqrt(cfg.cover_mm2) / 2
    mx, my = (x0 + x1) / 2, (y0 + y1) / 2
    quad = sc.pose.project(np.array([[mx - a, my - a, 0.0], [mx + a, my - a, 0.0],
                                     [mx + a, my + a, 0.0], [mx - a, my + a, 0.0]])) / f
    min_area = max(float(cv2.contourArea(quad.astype(np.float32))), 1.0)
    rows_i, cols_i = np.nonzero(board)
    if len(rows_i) < min_area:
        return None
    full = np.column_stack([(cols_i + 0.5) * f - 0.5, (rows_i + 0.5) * f - 0.5])
    lin = srgb8_codes_to_linear(small[rows_i, cols_i, ::-1])
    if sc.gain.constant:  # (the board points are then needed only where skin is seen)
        xy = np.zeros((len(full), 2))
        gain = sc.gain.at(xy[:1])
    else:
        xy = sc.pose.pixel_to_plane(full, 0.0)[:, :2]
        gain = sc.gain.at(xy)
    lab = linear_to_lab(np.clip(lin / gain, 0, None))
    chroma = np.hypot(lab[:, 1], lab[:, 2])
    hue = np.degrees(np.arctan2(lab[:, 2], lab[:, 1]))
    cand = ((hue >= cfg.skin_hue[0]) & (hue <= cfg.skin_hue[1]) & (chroma >= cfg.skin_chroma[0])
            & (chroma <= cfg.skin_chroma[1]) & (lab[:, 0] >= 12) & (lab[:, 0] <= 88))
    if cand.sum() < min_area:
        return None
    # not the print itself (zone C's pink is a skin hue): only where the picture differs from it
    j = np.nonzero(cand)[0]
    if sc.gain.constant:
        xy[j] = sc.pose.pixel_to_plane(full[j], 0.0)[:, :2]
    exp, _ = _expected(sc.app, xy[j])
    # (with the base colour ramp: skin over a pale print of a similar hue differs only a little)
    keep = _pieceness(lab[j], linear_to_lab(exp), replace(cfg, dab_lo=cfg.cover_dab[0], dab_hi=cfg.cover_dab[1])) > 0.5
    if off_board is not None and sc.table_lab is not None:
        off = off_board[rows_i[j], cols_i[j]]
        keep = np.where(off, np.linalg.norm(lab[j] - sc.table_lab[None, :], axis=1) > cfg.cover_table_de, keep)
    skin = np.zeros((hh, ww), np.uint8)
    skin[rows_i[j[keep]], cols_i[j[keep]]] = 1
    skin = np.asarray(cv2.morphologyEx(skin, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)), np.uint8)
    for arr in (skin, j, keep, lab, rows_i, cols_i):
        arr.setflags(write=False)
    return skin, min_area, j, keep, lab, rows_i, cols_i


def _seen_whole(sc: _Scene, sites: Sequence[Site], hyps: Sequence[Hypothesis], choice: npt.NDArray[np.int64],
                covered: F64, cfg: ClassifyBoardConfig) -> tuple[F64, set[int]]:
    """Bandera: ``covered`` with the sites cleared whose stack (one or two cubes, as read) shows the socket of
    its top face: nothing stands on that stack and nothing hides its top, so a hand beside it hides no part
    of it (the hand grouping covers the gaps between fingers, and cubes beside them).  With
    ``cover_socket_top`` 1 only the sites the grouping alone covers are looked at.  Also returns the sites
    cleared: no character or flag stands on them (their top's socket is seen bare)."""
    look = covered > 0
    if cfg.cover_socket_top == 1 and cfg.cover_join_px > 0:
        look &= _covered_sites(sc, sites, _tallest_piece("bandera", cfg.geometry), replace(cfg, cover_join_px=0)) == 0
    cubes = np.array([hyps[int(c)].cubes for c in choice], np.int64)
    idx = np.nonzero(look & (cubes >= 1) & (cubes <= 2))[0]
    if not len(idx):
        return covered, set()
    rows_o, own_o = _chosen_solids(hyps, choice, sites)
    sk = _sockets(sc, sites, idx, rows_o, own_o, cfg)
    top = np.where(cubes[idx] == 1, sk[:, 0], sk[:, 1])
    out = covered.copy()
    out[idx[top]] = 0.0
    return out, {int(i) for i in idx[top]}


def _finger_blobs(skin: npt.NDArray[np.uint8], aspect: float, min_area: float) -> npt.NDArray[np.uint8]:
    """The skin blobs (8-connected) that may be part of a hand: a hand's size alone, or elongated (a finger:
    its rotated bounding box at least ``aspect`` times as long as wide).  A wood or orange cube is a compact
    blob of a skin hue; several side by side must not be grouped into a hand."""
    n, comp, stats, _ = cv2.connectedComponentsWithStats(skin, connectivity=8)
    keep = np.zeros(n, bool)
    for b in range(1, n):
        if stats[b, cv2.CC_STAT_AREA] > min_area:
            keep[b] = True
            continue
        ys, xs = np.nonzero(comp == b)
        (_, _), (w, h), _ = cv2.minAreaRect(np.column_stack([xs, ys]).astype(np.float32))
        keep[b] = max(w, h) + 1.0 >= aspect * (min(w, h) + 1.0)
    return np.asarray(keep[comp], np.uint8)


@lru_cache(maxsize=16)
def _table_points(extent: tuple[float, float, float, float]) -> F64:
    """Board points (N, 3) of a band 15-50 mm outside the printed edge ``extent`` (read-only)."""
    x0, y0, x1, y1 = extent
    pts = []
    for d in (15.0, 30.0, 50.0):
        xs = np.linspace(x0 - d, x1 + d, 24)
        ys = np.linspace(y0 - d, y1 + d, 16)
        pts += [(x, y0 - d) for x in xs] + [(x, y1 + d) for x in xs] + [(x0 - d, y) for y in ys] + \
               [(x1 + d, y) for y in ys]
    p3 = np.column_stack([np.array(pts), np.zeros(len(pts))])
    p3.setflags(write=False)
    return p3


def _table_colour(sc: _Scene) -> F64 | None:
    """Median CIELAB of the table around the board (a band 15-50 mm outside its printed edge)."""
    p3 = _table_points(sc.pose.spec.extent_mm)
    w, h = sc.pose.image_size
    px = sc.pose.project(p3)
    ok = (px[:, 0] > 2) & (px[:, 0] < w - 3) & (px[:, 1] > 2) & (px[:, 1] < h - 3)
    if ok.sum() < 10:
        return None
    lab = linear_to_lab(np.clip(_sample(sc.image, px[ok]) / sc.gain.at(p3[ok, :2]), 0, None))
    return np.asarray(_median_rows(lab), np.float64)


def _tallest_piece(game: str, g: PieceGeometry) -> float:
    if game == "bandera":
        return 2 * g.cube_mm + max(g.flag_height, g.character_height)
    return max(g.king_height, g.blocker_height, g.pawn_height)


def _solid_under(rows: F64, places: F64) -> npt.NDArray[np.int64]:
    """For each place (N, 3: x, y, floor mm), the structure row (a pad) whose top's centre it is, or -1."""
    same = np.asarray((np.abs(rows[None, :, [1, 2, 5]] - places[:, None, :]) < 1e-3).all(axis=2), bool)
    return np.asarray(np.where(same.any(axis=1), same.argmax(axis=1), -1), np.int64)


def _structure_colours(sc: _Scene, cfg: ClassifyBoardConfig, groups: npt.NDArray[np.int64] | None = None,
                       sites: Sequence[Site] = (), own_out: list[F64] | None = None,
                       seen_out: list[npt.NDArray[np.bool_]] | None = None) -> F64:
    """Observed CIELAB of each structure solid's top (a ring near its edge, clear of the piece that
    may stand in the middle): the background a probe ray meeting that solid should see.  A solid whose
    ring is hidden by others (an upper level) on all but 2 of its points takes, when ``groups`` puts it
    in a group (>= 0) with solids whose ring is seen, the median of their colours: its own points show
    what hides it (the hyper-pad in the middle of Gridopolis' level 1, under level 2, is read purple on
    the four of level 2; session 7); with ``group_pool`` the solids of a group on one level share the median
    of their ring points (a player's three kingerizers: the shadow of the piece on one of them does not make
    its colour).  With ``ring_clear_of_piece``, on a solid one of ``sites`` stands on,
    the ring points a piece standing there would hide (a blocker box: the widest and tallest) are left out
    while 3 or more others are seen: else the piece's colour is taken for the pad's (session 7).  ``seen_out``
    (if given) receives which solids' rings are seen on ``group_own_points`` points or more."""
    assert sc.structure is not None
    ang = np.linspace(0, 2 * np.pi, 16, endpoint=False)
    out = np.zeros((len(sc.structure), 3))
    rows = sc.structure
    r = cfg.pad_ring * rows[:, 3]
    pts = np.stack([rows[:, None, 1] + r[:, None] * np.cos(ang)[None, :],
                    rows[:, None, 2] + r[:, None] * np.sin(ang)[None, :],
                    np.repeat(rows[:, 5:6], len(ang), axis=1)], axis=-1).reshape(-1, 3)
    w, h = sc.pose.image_size
    px = sc.pose.project(pts)
    ok = (px[:, 0] > 2) & (px[:, 0] < w - 3) & (px[:, 1] > 2) & (px[:, 1] < h - 3)
    lab = linear_to_lab(np.clip(_sample(sc.image, np.where(ok[:, None], px, 0.0)) / sc.gain.at(pts[:, :2]), 0, None))
    lab = lab.reshape(len(rows), len(ang), 3)
    ok = ok.reshape(len(rows), len(ang))
    # a ring point under another solid (an upper level) shows that solid, not this one's colour
    cam = sc.pose.camera_position
    if not rows[:, 0].any():  # boxes (Gridopolis pads and links): only those seen around each point
        own = np.repeat(np.arange(len(rows)), len(ang))
        hid_any, _ = box_ray_hits(cam, pts, rows, np.ones(len(pts)), px, sc.structure_px, exclude=own,
                                  chunk=len(ang), behind=False)  # (one chunk per ring)
        hid_any = hid_any.reshape(len(rows), len(ang))
    else:
        hid = np.asarray(hits(cam, pts, rows, t_min=0.0, t_max=1.0 - 1e-3), bool).reshape(len(rows), len(ang),
                                                                                        len(rows))
        hid[:, :, np.arange(len(rows))] &= ~np.eye(len(rows), dtype=bool)[:, None, :]
        hid_any = np.asarray(hid.any(axis=2), bool)
    seen = ok & ~hid_any
    clear = seen.sum(axis=1) >= 3
    short = np.zeros(len(rows), bool)
    free = np.zeros((len(rows), len(ang)), bool)
    if cfg.ring_clear_of_piece and len(sites):
        on = np.zeros(len(rows), bool)
        at = _solid_under(rows, np.array([[st.x_mm, st.y_mm, st.floor_mm] for st in sites]))
        on[at[at >= 0]] = True
        g = cfg.geometry
        room = np.column_stack([np.zeros(len(rows)), rows[:, 1], rows[:, 2], np.full(len(rows), g.blocker_half),
                                rows[:, 5], rows[:, 5] + max(g.blocker_height, g.king_height)])
        near = np.repeat(on, len(ang))
        behind = np.zeros(len(pts), bool)
        behind[near] = np.asarray(hits(cam, pts[near], np.repeat(room, len(ang), axis=0)[near][:, None, :],
                                       t_max=1.0 - 1e-6), bool)[:, 0]
        free = seen & ~behind.reshape(len(rows), len(ang))
        short = on & (free.sum(axis=1) < 3)
        seen = np.where(~short[:, None], free, seen)
    ok = np.asarray(np.where(clear[:, None], seen, ok), bool)
    med = _masked_median(lab, ok) if len(rows) else out
    has = np.asarray(ok.any(axis=1), bool)
    out[:] = np.where(has[:, None], med, np.array([60.0, 0.0, 0.0])[None, :])
    if cfg.ring_short_neighbours > 0 and short.any():
        # (its ring points clear of the piece only count: too few for its own colour, it takes its neighbours')
        plain = ~short & (seen.sum(axis=1) >= 3)
        if groups is not None:
            plain &= groups < 0
        for i in np.nonzero(short & (groups < 0 if groups is not None else True))[0]:
            cand = np.nonzero(plain & (np.abs(rows[:, 5] - rows[i, 5]) < 1e-3))[0]
            if len(cand):
                d = np.hypot(rows[cand, 1] - rows[i, 1], rows[cand, 2] - rows[i, 2])
                pick = cand[np.argsort(d, kind="stable")[: cfg.ring_short_neighbours]]
                mate = _median_rows(out[pick])
                c_mate = math.hypot(mate[1], mate[2]) + cfg.ring_short_chroma
                if free[i].any() and math.hypot(out[i, 1], out[i, 2]) >= c_mate:
                    # (only where its ring shows a colour its neighbours do not, on the points a piece may cover
                    # only: the points clear of it look plain -- not a pad's own tint, nor the print of an arm)
                    clear_lab = _median_rows(lab[i][free[i]])
                    if math.hypot(clear_lab[1], clear_lab[2]) < c_mate:
                        out[i] = mate
    if own_out is not None:
        own_out.append(out.copy())
    if seen_out is not None:
        seen_out.append(np.asarray(seen.sum(axis=1) >= cfg.group_own_points, bool))
    if groups is not None:
        own = seen.sum(axis=1) >= cfg.group_own_points
        for g in np.unique(groups[groups >= 0]):
            mine = groups == g
            if cfg.group_pool:  # one group's solids on one level, in the same light: their ring points pooled
                for z in np.unique(rows[mine & own, 5]):
                    lvl = mine & own & (rows[:, 5] == z)
                    if lvl.sum() > 1:
                        out[lvl] = _masked_median(lab[lvl].reshape(1, -1, 3), ok[lvl].reshape(1, -1))[0]
            if (mine & own).any() and (mine & ~own).any():
                out[mine & ~own] = np.median(out[mine & own], axis=0)
    return out


def _off_its_pad(sc: _Scene, i: int, lab: F64, name: str | None, cfg: ClassifyBoardConfig) -> bool:
    """Gridopolis (``marker_ring_contrast``): whether the marker colour ``lab`` read on site ``i`` (standing on
    structure row ``i``), of hue ``name`` but paler than ``marker_saturation`` allows, stands off its own pad's ring
    (seen round the piece) as a piece does: chroma / L* at least the rule's, b* lower than the ring's by the rule's
    amount and the ring grey (a bluish light tints the pad's ring as much as the middle; a blue piece is bluer than
    the grey pad it stands on; a ring tinted otherwise -- a kingerizer, a lamp's colour -- says nothing)."""
    rule = next((r for r in cfg.marker_ring_contrast if r[0] == name), None)
    if rule is None or sc.structure_own_lab is None or sc.structure_seen is None or i >= len(sc.structure_seen) \
            or not sc.structure_seen[i]:
        return False
    ring = sc.structure_own_lab[i]
    return bool(math.hypot(float(lab[1]), float(lab[2])) >= rule[1] * max(float(lab[0]), 1.0)
                and float(lab[2]) - float(ring[2]) <= rule[2]
                and math.hypot(float(ring[1]), float(ring[2])) <= rule[3] * max(float(ring[0]), 1.0))


def _ring_alike(sc: _Scene, i: int, lab: F64) -> float | None:
    """Gridopolis (``ring_alike_de``): the CIELAB difference between the colour ``lab`` read on site ``i`` and its
    own pad's ring seen round it (structure row ``i``), or None where that ring is not seen."""
    if sc.structure_own_lab is None or sc.structure_seen is None or i >= len(sc.structure_seen) \
            or not sc.structure_seen[i]:
        return None
    return float(np.linalg.norm(np.asarray(lab, np.float64) - sc.structure_own_lab[i]))


def _paler(lab: F64, floor: float) -> bool:
    """Whether the CIELAB colour ``lab`` has less chroma than ``floor`` x its L* (L* taken as 1 at least)."""
    return bool(math.hypot(float(lab[1]), float(lab[2])) < floor * max(float(lab[0]), 1.0))


def _in_local_light(sc: _Scene, site: Site, lab: F64, cfg: ClassifyBoardConfig,
                    empty: npt.NDArray[np.bool_] | None = None) -> F64:
    """Gridopolis: the CIELAB colour ``lab`` seen at ``site`` as it would look in the picture's balanced light:
    the plain pads (grey plastic: neutral where the white balance holds) on the site's level within
    ``local_light_mm`` of it whose rings are seen show the light there; their median colour's tint (linear RGB
    over its luminance) is divided out.  Unchanged where no such pad is seen."""
    if sc.structure is None or sc.structure_plain is None or sc.structure_own_lab is None:
        return lab
    rows = sc.structure
    near = sc.structure_plain & (np.abs(rows[:, 5] - site.floor_mm) < 1.0) \
        & (np.hypot(rows[:, 1] - site.x_mm, rows[:, 2] - site.y_mm) <= cfg.local_light_mm)
    if empty is not None:  # (a pad with a piece on it may show the piece on its ring)
        near[: len(empty)] &= empty
    if near.sum() < LOCAL_LIGHT_PADS:
        return lab
    grey = lab_to_linear(_median_rows(sc.structure_own_lab[near]))
    lum = float(grey @ np.array([0.2126, 0.7152, 0.0722]))
    if lum <= 1e-4:
        return lab
    tint = np.clip(grey / lum, 0.2, 5.0)
    return np.asarray(linear_to_lab(np.clip(lab_to_linear(lab) / tint, 0.0, None)), np.float64)


def _row_quantiles(vals: F64, qs: Sequence[float]) -> list[F64]:
    """Quantiles ``qs`` (0..1) of each row of ``vals`` (N, M) over its values that are not NaN, as
    ``np.nanpercentile(..., axis=1)`` computes them (linear interpolation; NaN for a row of NaNs),
    without its per-row loop."""
    srt = np.sort(vals, axis=1)  # NaNs go last
    n = (~np.isnan(vals)).sum(axis=1)
    rows = np.arange(len(vals))
    out: list[F64] = []
    for q in qs:
        pos = q * np.maximum(n - 1, 0)
        lo = np.floor(pos).astype(np.int64)
        hi = np.minimum(lo + 1, np.maximum(n - 1, 0))
        a, b = srt[rows, lo], srt[rows, hi]
        out.append(np.asarray(np.where(n > 0, a + (pos - lo) * (b - a), np.nan), np.float64))
    return out


def _crown_hits(cam: F64, sites: Sequence[Site], ends_s: F64, cfg: ClassifyBoardConfig, idx: Sequence[int]
                ) -> dict[int, npt.NDArray[np.bool_]]:
    """Per site ``i`` of ``idx``: which of its probes' rays (``ends_s[i]``, (P, 3)) meet the crown a king standing on it
    would have (:func:`vision.board_rays.hits` of one cylinder), all sites in one call (session 19: each answer
    computed by the same operations as a call per site -- every step of ``hits`` is elementwise)."""
    geo = cfg.geometry
    ii = np.asarray(idx, np.int64)
    crowns = np.array([[1.0, sites[i].x_mm, sites[i].y_mm, geo.crown_radius, sites[i].floor_mm + geo.pawn_height,
                        sites[i].floor_mm + geo.king_height] for i in ii]).reshape(-1, 1, 1, 6)
    met = np.asarray(hits(cam, ends_s[ii], crowns), bool)[..., 0]  # (T, P)
    return {int(i): met[t] for t, i in enumerate(ii)}


def _median_rows(vals: F64) -> F64:
    """``np.median(vals, axis=0)`` of a few rows (N >= 1, C), or of a few values (N,): the same numbers (the middle
    one, or half the sum of the middle two), without its general machinery (called per site; session 19: also for
    the Bandera stacks' outlines, faces and characters, and Gridopolis's local light)."""
    s = np.sort(vals, axis=0)
    n = len(s)
    if n == 0 or np.isnan(s[-1]).any():  # (NaN: np.median's own answer)
        return np.asarray(np.median(vals, axis=0), np.float64)
    if n % 2:
        return np.asarray(s[n // 2], np.float64)
    return np.asarray((s[n // 2 - 1] + s[n // 2]) / 2.0, np.float64)


def _median_rows_masked(vals: F64, ok: npt.NDArray[np.bool_]) -> F64:
    """Per row ``r``, ``np.median(vals[r][ok[r]], axis=0)`` (R, C) of ``vals`` (R, A, C), every row with at least one
    ``ok`` entry: the same numbers, all rows at once (:func:`_masked_median` when every value is finite -- the middle
    one, or half the sum of the middle two, as ``np.median`` takes them --, else row by row; session 19: the
    Gridopolis pad finder's pad colours)."""
    if not len(vals):
        return np.zeros((0, vals.shape[2]))
    if bool(np.isfinite(vals).all()):
        return _masked_median(vals, ok)
    return np.array([_median_rows(v[o]) for v, o in zip(vals, ok, strict=True)], np.float64).reshape(len(vals), -1)


def _masked_median(vals: F64, ok: npt.NDArray[np.bool_]) -> F64:
    """Per row, the median of ``vals`` (R, A, C) over the ``ok`` (R, A) entries (R, C): the numbers
    ``np.nanmedian`` gives with the others set to NaN (the middle one, or half the sum of the middle
    two), without its masked-array path; rows with none give ``inf``."""
    s = np.sort(np.where(ok[..., None], vals, np.inf), axis=1)
    n = ok.sum(axis=1)
    lo = np.maximum((n - 1) // 2, 0)[:, None, None]
    hi = np.minimum(n // 2, vals.shape[1] - 1)[:, None, None]
    idx = np.broadcast_to(lo, (len(vals), 1, vals.shape[2]))
    a = np.take_along_axis(s, idx, axis=1)[:, 0]
    b = np.take_along_axis(s, np.broadcast_to(hi, idx.shape), axis=1)[:, 0]
    with np.errstate(invalid="ignore"):
        return np.asarray((a + b) / 2.0, np.float64)


def _nearest_solids(rows: F64, owner: npt.NDArray[np.int64], centres: F64, k: int
                    ) -> tuple[F64, npt.NDArray[np.int64]]:
    """For each centre (T, 2): its ``k`` nearest solids (T, k, 6) and their owners (T, k) (rays of a
    site's probes only ever pass near it; padded with empty solids when there are fewer)."""
    if len(rows) <= k:
        pad = k - len(rows)
        r = np.vstack([rows, np.tile([[0.0, 1e9, 1e9, 0.0, 0.0, 0.0]], (pad, 1))]) if pad else rows
        o = np.concatenate([owner, np.full(pad, -1)]) if pad else owner
        return np.broadcast_to(r, (len(centres), k, 6)), np.broadcast_to(o, (len(centres), k))
    d = np.hypot(rows[None, :, 1] - centres[:, None, 0], rows[None, :, 2] - centres[:, None, 1])
    near = np.argpartition(d, k - 1, axis=1)[:, :k]
    return rows[near], owner[near]


def _within_reach(cam: F64, ends: F64) -> bool:
    """Are the camera and every ray end finite and within 1e8 mm of the board's origin (x and y)?"""
    return bool(np.abs(cam[:2]).max() < 1e8) and (ends.size == 0 or bool(np.abs(ends[..., :2]).max() < 1e8))


def _not_blocked(cam: F64, ends: F64, rows: F64, owner: npt.NDArray[np.int64], sites_idx: npt.NDArray[np.int64],
                 centres: F64 | None = None, k: int = 10, mask: npt.NDArray[np.bool_] | None = None
                 ) -> npt.NDArray[np.bool_]:
    """(T, P): the rays of probes ``ends`` (T, P, 3) of sites ``sites_idx`` meet no solid ``rows``
    (G, 6) belonging to another site (``owner`` (G,)); only the ``k`` solids nearest each site
    (``centres`` (T, 2), else the probes' mean) are tried, and with ``mask`` (T, P) only those probes
    (the others are given True)."""
    if not len(rows):
        return np.ones(ends.shape[:2], bool)
    ctr = centres if centres is not None else ends[..., :2].mean(axis=1)
    if len(rows) < k and _within_reach(cam, ends):
        # (fewer solids than ``k``: the empty solids padding them out, 1e9 mm away, meet no ray of these, whose every
        # coordinate is under 1e8 mm -- only the solids themselves are tried, their answers the same; session 19)
        k = len(rows)
    near, own = _nearest_solids(rows, owner, ctr, k)
    if mask is not None:
        t_i, p_i = np.nonzero(mask)
        out = np.ones(ends.shape[:2], bool)
        hit_m = np.asarray(hits(cam, ends[t_i, p_i], near[t_i]), bool)  # (Q, k)
        out[t_i, p_i] = ~(hit_m & (own[t_i] != sites_idx[t_i, None])).any(axis=1)
        return out
    hit = np.asarray(hits(cam, ends, near[:, None, :, :]), bool)  # (T, P, k)
    return np.asarray(~(hit & (own[:, None, :] != sites_idx[:, None, None])).any(axis=2), bool)


def _dark_outline(sc: _Scene, sites: Sequence[Site], idx: npt.NDArray[np.int64], rows: F64,
                  owner: npt.NDArray[np.int64], cfg: ClassifyBoardConfig) -> tuple[F64, npt.NDArray[np.int64]]:
    """Bandera: the outline a single cube on each site ``idx`` would have in the picture, looked at for
    a dark solid: per site, the share of the outline's points where the picture just inside the outline
    is darker than just outside it (grey under ``black_outline`` x outside), and how many points were
    usable.  The outline is the cube's silhouette edges, from the pose: a top edge whose side the camera
    does not see (inside: the top face; outside: what lies behind), an upright edge between a side it sees
    and one it does not, a bottom edge of a side it sees (outside: the board in front).  Points whose rays
    (on down to the board) meet another site's piece are left out; the rays are tested only on sites with
    enough dark points to pass (``black_outline_share`` of ``black_outline_points``), the others are given
    no usable point.  The cube is taken square to the grid in the cell's middle (a cube set a little askew
    or off the middle stays within the 2 mm either side).  A shadow has no cube's outline."""
    g = cfg.geometry
    half, c = g.cube_mm / 2, g.cube_mm
    cam = sc.pose.camera_position
    n_t = len(idx)
    if n_t == 0:
        return np.zeros(0), np.zeros(0, np.int64)
    ctr = np.array([[sites[int(i)].x_mm, sites[int(i)].y_mm, sites[int(i)].floor_mm] for i in idx])
    sides = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])  # outward normals of the 4 sides
    # a side is seen when the camera is beyond its plane
    seen = ((cam[None, None, :2] - ctr[:, None, :2]) * sides[None]).sum(axis=2) > half  # (T, 4)
    ts = np.linspace(-0.7, 0.7, 6) * half
    e = cfg.black_outline_mm
    ins, outs, ok = [], [], []
    z_top = ctr[:, 2] + c
    for k in range(4):
        n = sides[k]
        tng = np.array([-n[1], n[0]])
        base = ctr[:, None, :2] + half * n[None, None, :] + ts[None, :, None] * tng[None, None, :]  # (T, 6, 2)
        # the top edge of side k: outline where side k is not seen
        p = np.concatenate([base, np.repeat(z_top[:, None, None], 6, axis=1)], axis=2)
        ins.append(p - np.array([e * n[0], e * n[1], 0.0]))
        outs.append(p + np.array([e * n[0], e * n[1], 0.0]))
        ok.append(np.repeat(~seen[:, k:k + 1], 6, axis=1))
        # the bottom edge of side k: outline where side k is seen
        p = np.concatenate([base, np.repeat(ctr[:, None, 2:3], 6, axis=1) + 0.0], axis=2)
        ins.append(p + np.array([0.0, 0.0, e]))
        outs.append(p + np.array([e * n[0], e * n[1], 0.0]))
        ok.append(np.repeat(seen[:, k:k + 1], 6, axis=1))
        # the upright edge between side k and side k + 1: outline where exactly one of them is seen
        m = sides[(k + 1) % 4]
        zz = ctr[:, 2:3] + (0.5 + np.linspace(-0.35, 0.35, 6)[None, :]) * c  # (T, 6)
        xy = ctr[:, None, :2] + half * (n + m)[None, None, :]
        p = np.concatenate([np.repeat(xy, 6, axis=1), zz[..., None]], axis=2)
        hid = np.where(seen[:, k:k + 1], m[None, :], n[None, :])  # (T, 2): the side not seen
        hid3 = np.concatenate([hid, np.zeros((n_t, 1))], axis=1)[:, None, :]
        ins.append(p - e * hid3)
        outs.append(p + e * hid3)
        ok.append(np.repeat(seen[:, [k]] != seen[:, [(k + 1) % 4]], 6, axis=1))
    p_in = np.concatenate(ins, axis=1)
    p_out = np.concatenate(outs, axis=1)
    use = np.concatenate(ok, axis=1)
    n_q = p_in.shape[1]

    def to_board(q: F64, floor: F64) -> F64:  # the ray through q, on down to the floor (what is behind q counts)
        s_ = (cam[2] - floor[:, None, None]) / np.maximum(cam[2] - q[..., 2:3], 1e-6)
        return np.asarray(cam + (q - cam) * s_, np.float64)

    px = sc.pose.project(np.concatenate([p_in, p_out], axis=1).reshape(-1, 3))
    h_img, w_img = sc.image.shape[:2]
    in_img = ((px[:, 0] >= 0) & (px[:, 0] < w_img - 1) & (px[:, 1] >= 0) & (px[:, 1] < h_img - 1)).reshape(n_t, -1)
    bgr = _remap_points(sc.image, np.clip(px[:, 0], 0, w_img - 1), np.clip(px[:, 1], 0, h_img - 1))
    grey = (bgr @ np.array([0.114, 0.587, 0.299])).reshape(n_t, 2 * n_q)
    use = use & in_img[:, :n_q] & in_img[:, n_q:]
    dark = grey[:, :n_q] < cfg.black_outline * grey[:, n_q:]
    # the rays are tested only where enough points are dark to pass (hidden points only lower the count)
    need = math.ceil(cfg.black_outline_share * cfg.black_outline_points - 1e-9)
    look = np.nonzero((dark & use).sum(axis=1) >= max(need, 1))[0]
    if len(look):
        ends = np.concatenate([to_board(p_in[look], ctr[look, 2]), to_board(p_out[look], ctr[look, 2])], axis=1)
        free = _not_blocked(cam, ends, rows, owner, idx[look], ctr[look, :2],
                            mask=np.concatenate([use[look], use[look]], axis=1))
        use[look] &= free[:, :n_q] & free[:, n_q:]
    miss = np.ones(n_t, bool)
    miss[look] = False
    use[miss] = False  # (too few dark points: not a cube, whatever the rays)
    n_use = use.sum(axis=1)
    share = np.where(n_use > 0, (dark & use).sum(axis=1) / np.maximum(n_use, 1), 0.0)
    return np.asarray(share, np.float64), np.asarray(n_use, np.int64)


def _foot_shift(sites: Sequence[Site], hyps: Sequence[Hypothesis], choice: npt.NDArray[np.int64], piece: F64,
                valid: npt.NDArray[np.bool_], n_z: int, cfg: ClassifyBoardConfig) -> list[int]:
    """Bandera: a cube stands on its square (docs/rules/bandera.md, section 2: cubes go on the board's squares, and
    on cubes), so the probes at its foot on the side towards the camera (2 and 6 mm over the board on the near probe
    line, 2 mm on the two side lines: inside the cube, in front of the rest of the stack) show it.  A stack whose
    usable foot probes (2 at least) all show no piece (under ``foot_shift``) while a square next to it (4-neighbour)
    read empty shows a piece on every usable lowest probe (3 at least, ``foot_shown`` or more) is the stack seen
    on the wrong square -- the solve put a solid standing next to it (often taller, seen over it) on it: the stack is
    emptied (``choice`` changed in place) and the neighbour's index returned to be decided again."""
    # probe lines: 0 the centre, 1 away from the camera, 2 towards it, 3 and 4 to the sides; heights 2, 6, ... mm
    near = [2 * n_z, 2 * n_z + 1, 3 * n_z, 4 * n_z]
    lowest = [k * n_z for k in range(5)]
    at = {tuple(s.key[:2]): i for i, s in enumerate(sites)}
    out: list[int] = []
    for i, s in enumerate(sites):
        if hyps[int(choice[i])].cubes < 1:
            continue
        f = piece[i, near][valid[i, near]]
        if len(f) < 2 or f.max() >= cfg.foot_shift:
            continue
        x, y = int(s.key[0]), int(s.key[1])
        for k in (at.get((x + 1, y)), at.get((x - 1, y)), at.get((x, y + 1)), at.get((x, y - 1))):
            if k is None or choice[k] != 0 or k in out:
                continue
            g = piece[k, lowest][valid[k, lowest]]
            if len(g) >= 3 and g.min() >= cfg.foot_shown:
                choice[i] = 0
                out.append(k)
                break
    return out


def _royal_per_player(sites: Sequence[Site], stacks: npt.NDArray[np.int64], choice: npt.NDArray[np.int64],
                      hyps: Sequence[Hypothesis], scores: F64,
                      char_of: dict[int, tuple[str | None, float, float] | None],
                      flag_of: dict[int, str | None], by_rule: dict[int, str], off_rail: dict[int, str],
                      cfg: ClassifyBoardConfig) -> None:
    """Bandera: one royal tower per player, on its paved squares (docs/rules/bandera.md, sections 1-3 and 7;
    ``flag_of``, ``by_rule`` and ``off_rail`` changed in place).  The players are the colours seen on
    characters and flags, and the seats before theirs (blue, red, green, yellow).  A flag whose colour's
    royal tower cannot stand on its square with that many players is none (a note); a player with no flag
    found has it on the only stack of its paved squares that may be two cubes (read as two, or one cube
    that two explain within ``flag_single_margin``), with a note: a captured flag's player has none (its
    tower is then a plain one), which the note leaves to the user."""
    from engine.bandera.board import DEFAULT_NAMES

    seen = {f[0] for f in char_of.values() if f is not None and f[0] is not None}
    seen |= {f for f in flag_of.values() if f is not None}
    rails = bandera_rails_for(seen)
    for i, f in list(flag_of.items()):
        if f is not None and f in rails and tuple(sites[i].key[:2]) not in rails[f]:
            flag_of[i] = None
            off_rail[i] = f
            by_rule.pop(i, None)
    top = max((DEFAULT_NAMES.index(c) for c in seen if c in DEFAULT_NAMES), default=-1)
    if top < 0:
        return
    two = next(j for j, h in enumerate(hyps) if h.cubes == 2)
    flagged = {f for f in flag_of.values() if f is not None}
    for p in DEFAULT_NAMES[:max(2, top + 1)]:
        if p in flagged:
            continue
        cands = [int(i) for i in stacks if tuple(sites[int(i)].key[:2]) in rails.get(p, frozenset())
                 and flag_of.get(int(i)) is None
                 and (hyps[int(choice[i])].cubes == 2
                      or scores[two, i] >= scores[choice[i], i] - cfg.flag_single_margin)]
        if len(cands) != 1:
            continue
        i = cands[0]
        flag_of[i] = p
        x, y = sites[i].key[0], sites[i].key[1]
        by_rule[i] = (f"{p}'s flag was not clearly seen, but {p} plays: its royal tower taken to be the only stack "
                      f"on its paved squares that may be two cubes, at ({x},{y})")
    if cfg.royal_off_rail:
        # a banner is seen there, in a colour whose royal tower never stands there (its colour misjudged in the
        # light): it is the flag of the one player whose royal tower may stand there and is read nowhere else
        # (docs/rules/bandera.md: one flag per player, section 1; a royal tower starts on its square, section 3, and
        # moves only along its paved squares, sections 2 and 7)
        table = bandera_flag_rails()
        for i, f in list(off_rail.items()):
            if flag_of.get(i) is not None or hyps[int(choice[i])].cubes != 2:
                continue
            flagged = {g for g in flag_of.values() if g is not None}
            free = sorted(table.get((int(sites[i].key[0]), int(sites[i].key[1])), frozenset()) - flagged)
            if len(free) != 1:
                continue
            flag_of[i] = free[0]
            off_rail.pop(i)
            x, y = sites[i].key[0], sites[i].key[1]
            by_rule[i] = (f"the banner at ({x},{y}) looks {f}, but {f}'s royal tower never stands there; of the "
                          f"players whose royal tower may, only {free[0]}'s is read nowhere: taken to be {free[0]}'s")


def _character_on_empty(sc: _Scene, sites: Sequence[Site], hyps: Sequence[Hypothesis], choice: npt.NDArray[np.int64],
                        seen: set[int], covered: F64, char_of: dict[int, tuple[str | None, float, float] | None],
                        flag_of: dict[int, str | None], by_char: dict[int, str], past_hand: set[int], rows: F64,
                        owner: npt.NDArray[np.int64], colours: Sequence[str] | None,
                        cfg: ClassifyBoardConfig) -> npt.NDArray[np.int64]:
    """Bandera: a player whose flag is read but whose character is seen on no stack: a character stands only on
    cubes (docs/rules/bandera.md, section 6: "Los personajes nunca pueden tocar el tablero") and each player has one
    (section 1), so where it is seen standing one cube high (:func:`_characters`, as over a single cube) over
    exactly one square read empty (``seen``: some probe saw something there; not covered, not zone A), a cube stands
    there carrying it -- a pale cube the probes took for the paper.  ``choice``, ``char_of`` and ``by_char`` are
    changed in place; returns the sites found."""
    from engine.bandera.board import ZONE_A

    seen_c = {f[0] for f in char_of.values() if f is not None}
    # (a royal tower read beside a hand by its flag: its character was not looked for, the hand may hide it)
    seen_c |= {f for i, f in flag_of.items() if f is not None and i in past_hand}
    missing = sorted({f for f in flag_of.values() if f is not None} - seen_c)
    # (with ``character_on_empty_royal``: also a player whose character is read on its own royal tower alone -- it
    # may be the one on the next square, seen past the tower -- looked for over the tower's neighbours only)
    own: dict[str, int] = {}
    if cfg.character_on_empty_royal:
        for p in sorted({f for f in flag_of.values() if f is not None} - set(missing)):
            where_c = [i for i, f in char_of.items() if f is not None and f[0] == p]
            if len(where_c) == 1 and flag_of.get(where_c[0]) == p and where_c[0] not in past_hand:
                own[p] = where_c[0]
    if not missing and not own:
        return np.zeros(0, np.int64)
    beside = {(int(sites[i].key[0]) + dx, int(sites[i].key[1]) + dy) for i in own.values()
              for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))}
    idx = np.array([i for i in sorted(seen) if hyps[int(choice[i])].cubes == 0 and not covered[i]
                    and (int(sites[i].key[0]), int(sites[i].key[1])) not in ZONE_A
                    and (missing or (int(sites[i].key[0]), int(sites[i].key[1])) in beside)], np.int64)
    if not len(idx):
        return np.zeros(0, np.int64)
    # (a probe seen past the room over a stack's top -- where the missing character itself may stand, unseen on its
    # royal tower, in front of the square -- says nothing; a banner's room is not left out: as wide as a square, it
    # would hide the character on the next square)
    g = cfg.geometry
    c = g.cube_mm
    extra: list[list[float]] = []
    extra_own: list[int] = []
    for j in range(len(sites)):
        cubes = 2 if flag_of.get(j) is not None else hyps[int(choice[j])].cubes
        if cubes == 0 or covered[j] > 0:
            continue
        top = sites[j].floor_mm + cubes * c
        extra.append([0.0, sites[j].x_mm, sites[j].y_mm, c / 2, top - c, top + g.character_height])
        extra_own.append(j)
    if extra:
        rows = np.concatenate([rows, np.array(extra)]) if len(rows) else np.array(extra)
        owner = np.concatenate([owner, np.array(extra_own, np.int64)])
    strength: dict[int, tuple[int, int]] = {}
    got = _characters(sc, sites, idx, np.ones(len(idx), np.int64), rows, owner, colours, cfg, strength=strength,
                      over_print=True)
    # (seen clearly, as the cube under it is not: on as many probes as half the characters read on a stack)
    got = [f if strength.get(i, (0, 0))[0] >= cfg.character_on_empty else None
           for i, f in zip(idx.tolist(), got, strict=True)]
    one = next(j for j, h in enumerate(hyps) if h.cubes == 1)
    found: list[int] = []
    for p in missing + sorted(own):
        where = [(int(i), f) for i, f in zip(idx.tolist(), got, strict=True) if f is not None and f[0] == p]
        if p in own:  # (on a square next to its royal tower: seen past it)
            ko = sites[own[p]].key
            where = [(i, f) for i, f in where
                     if abs(int(sites[i].key[0]) - int(ko[0])) + abs(int(sites[i].key[1]) - int(ko[1])) == 1]
        if len(where) != 1:
            continue  # seen over none, or over two: which one carries it cannot be told
        i, at = where[0]
        if p in own:
            char_of[own[p]] = None
        choice[i] = one
        char_of[i] = at
        found.append(i)
        x, y = sites[i].key[0], sites[i].key[1]
        by_char[i] = (f"{p}'s character is seen on no stack, but one cube high over ({x},{y}), read empty: a cube "
                      f"taken to stand there and carry it (a character stands only on cubes)")
    return np.array(found, np.int64)


def _royal_on_empty(sc: _Scene, sites: Sequence[Site], hyps: Sequence[Hypothesis], choice: npt.NDArray[np.int64],
                    seen: set[int], covered: F64, char_of: dict[int, tuple[str | None, float, float] | None],
                    flag_of: dict[int, str | None], by_rule: dict[int, str], rows: F64, owner: npt.NDArray[np.int64],
                    colours: Sequence[str] | None, cfg: ClassifyBoardConfig) -> npt.NDArray[np.int64]:
    """Bandera: a player whose royal tower is read nowhere (no flag of its colour found, no square of its rail
    covered; the players as in :func:`_royal_per_player`) has it on its paved squares (docs/rules/bandera.md,
    sections 1-3 and 7): a square of its rail read empty where some probe saw something (``seen``: a square all of
    whose probes see the print holds nothing, whatever banner reaches over it) and over which its flag is seen at
    the banner's height (:func:`_flags`, as over a tower), the only such square or stack of its rail without a
    flag, holds it (two pale cubes the probes take for the paper; a flag floats over nothing else).  ``choice``,
    ``flag_of`` and ``by_rule`` are changed in place; returns the sites found."""
    from engine.bandera.board import DEFAULT_NAMES

    playing = {f[0] for f in char_of.values() if f is not None and f[0] is not None}
    playing |= {f for f in flag_of.values() if f is not None}
    top = max((DEFAULT_NAMES.index(c) for c in playing if c in DEFAULT_NAMES), default=-1)
    if top < 0:
        return np.zeros(0, np.int64)
    rails = bandera_rails_for(playing)
    flagged = {f for f in flag_of.values() if f is not None}
    hidden = {(int(sites[i].key[0]), int(sites[i].key[1])) for i in range(len(sites)) if covered[i] > 0}
    # (a player with a square of its rail covered (a hand) may have its royal tower there: not read nowhere)
    missing = [p for p in DEFAULT_NAMES[:max(2, top + 1)] if p not in flagged and p in rails and not rails[p] & hidden]
    squares = set().union(*(rails[p] for p in missing)) if missing else set()
    empty = [i for i in range(len(sites)) if hyps[int(choice[i])].cubes == 0 and not covered[i]
             and i in seen and (int(sites[i].key[0]), int(sites[i].key[1])) in squares]
    if not empty:
        return np.zeros(0, np.int64)
    # (with the stacks of those squares without a flag: a banner seen over an empty square may be a stack's next to
    # it, read as a plain one)
    plain = [i for i in range(len(sites)) if hyps[int(choice[i])].cubes > 0 and not covered[i]
             and flag_of.get(i) is None and (int(sites[i].key[0]), int(sites[i].key[1])) in squares]
    idx = np.array(empty + plain, np.int64)
    fl = _flags(sc, sites, idx, [None] * len(idx), rows, owner, colours, cfg)
    two = next(j for j, h in enumerate(hyps) if h.cubes == 2)
    found: list[int] = []
    for p in missing:
        where = [int(i) for i, f in zip(idx, fl, strict=True)
                 if f == p and (int(sites[int(i)].key[0]), int(sites[int(i)].key[1])) in rails[p]]
        if len(where) != 1 or where[0] not in empty:
            continue
        i = where[0]
        choice[i] = two
        flag_of[i] = p
        found.append(i)
        x, y = sites[i].key[0], sites[i].key[1]
        by_rule[i] = (f"{p}'s royal tower is read nowhere, but {p}'s flag is seen over ({x},{y}) on its paved squares, "
                      f"where no cube was seen: its royal tower taken to stand there")
    return np.array(found, np.int64)


def _tinted(sc: _Scene, sites: Sequence[Site], idx: npt.NDArray[np.int64], med_lab: F64,
            cfg: ClassifyBoardConfig, share_out: F64 | None = None) -> npt.NDArray[np.bool_]:
    """Bandera: which stacks ``idx`` (the median colour ``med_lab`` (T, 3) of the probes that saw them;
    NaN: too few) are a tinted patch of the board: on a square ring ``tint_ring_mm`` out from a single
    cube's faces, on the board, the points whose rays pass clear of a two-cube stack there (in the picture,
    within it) show the same colour, shading undone as for the probes (``tint_de`` a*b*), and differ from
    the print (a piece's colour), on ``tint_share`` of at least ``tint_points`` of them.  A cube is
    bounded: the board beside it shows the print, at most its shadow or a neighbour on some sides.
    ``share_out`` (T,) (if given) receives each stack's share (0 where fewer than ``tint_points`` are seen)."""
    g = cfg.geometry
    half, c = g.cube_mm / 2, g.cube_mm
    cam = sc.pose.camera_position
    out = np.zeros(len(idx), bool)
    ok_t = ~np.isnan(med_lab).any(axis=1)
    if not ok_t.any():
        return out
    idx_t, lab_t = idx[ok_t], med_lab[ok_t]
    r = half + cfg.tint_ring_mm
    ts = np.linspace(-1.0, 1.0, 6)[:-1] * r
    ring = np.array([(t, -r) for t in ts] + [(r, t) for t in ts] + [(-t, r) for t in ts] + [(-r, -t) for t in ts])
    ctr = np.array([[sites[int(i)].x_mm, sites[int(i)].y_mm, sites[int(i)].floor_mm] for i in idx_t])
    pts = np.concatenate([ctr[:, None, :2] + ring[None], np.repeat(ctr[:, None, 2:3], len(ring), axis=1)], axis=2)
    n_t, n_r = pts.shape[:2]
    exp_out: list[F64] = []
    piece, lab_o, usable, ends = _observe(sc, pts.reshape(-1, 3), cfg, expected_out=exp_out, slack=True)
    lab_e = exp_out[0]
    tower = np.stack([np.array([[0.0, x, y, half, z, z + 2 * c]]) for x, y, z in ctr])  # (T, 1, 6)
    clear = ~np.asarray(hits(cam, ends.reshape(n_t, n_r, 3), tower[:, None, :, :]), bool)[..., 0]
    use = usable.reshape(n_t, n_r) & clear
    k_r = np.clip(lab_e[:, 0] / np.maximum(lab_o[:, 0], 1.0), 1.0, cfg.shade_gain_max).reshape(n_t, n_r)
    ab_r = lab_o[:, 1:].reshape(n_t, n_r, 2) * k_r[..., None]
    # (the probes' colour, shading undone against the paper as the ring's is)
    k_p = np.clip(np.median(lab_e[:, 0].reshape(n_t, n_r), axis=1) / np.maximum(lab_t[:, 0], 1.0), 1.0,
                  cfg.shade_gain_max)
    ab_p = lab_t[:, 1:] * k_p[:, None]
    same = (np.linalg.norm(ab_r - ab_p[:, None, :], axis=2) <= cfg.tint_de) & (piece.reshape(n_t, n_r) > 0.5)
    n_use = use.sum(axis=1)
    share = (same & use).sum(axis=1) / np.maximum(n_use, 1)
    out[np.nonzero(ok_t)[0]] = (n_use >= cfg.tint_points) & (share >= cfg.tint_share)
    if share_out is not None:
        share_out[np.nonzero(ok_t)[0]] = np.where(n_use >= cfg.tint_points, share, 0.0)
    return out


def _upper_colour(sc: _Scene, sites: Sequence[Site], hyps: Sequence[Hypothesis], choice: npt.NDArray[np.int64],
                  covered: F64, socketed: set[int], cfg: ClassifyBoardConfig) -> npt.NDArray[np.int64]:
    """Bandera: a single cube read on a site (not covered) whose face towards the camera shows a plastic's colour
    (chroma ``upper_colour`` or more) while its top face's rim shows hardly any of it (chroma under
    ``upper_colour_ratio`` x the face's) holds two cubes: the camera sees an upper cube of another colour where
    the top would be (an ivory or grey-black cube on a coloured one, which the probes take for the paper or a
    shadow).  A cube's faces differ in shading, hardly in chroma.  Returns the choice (a copy, if changed); the
    sites changed are added to ``socketed`` (read by a cue of their own, not by the probes' margin)."""
    one = next(j for j, h in enumerate(hyps) if h.cubes == 1)
    two = next(j for j, h in enumerate(hyps) if h.cubes == 2)
    look = np.array([i for i in range(len(sites)) if choice[i] == one and not covered[i]], np.int64)
    if not len(look):
        return choice
    rows, owner = _chosen_solids(hyps, choice, sites)
    lab_f, lab_t, _ = _upper_faces(sc, sites, look, rows, owner, cfg)
    c_f = np.hypot(lab_f[:, 1], lab_f[:, 2])
    c_t = np.hypot(lab_t[:, 1], lab_t[:, 2])
    found = look[(c_f >= cfg.upper_colour) & (c_t < cfg.upper_colour_ratio * c_f)]  # (NaN: not seen, never)
    if not len(found):
        return choice
    choice = choice.copy()
    choice[found] = two
    socketed |= {int(i) for i in found}
    return choice


def _upper_faces(sc: _Scene, sites: Sequence[Site], idx: npt.NDArray[np.int64], rows: F64,
                 owner: npt.NDArray[np.int64], cfg: ClassifyBoardConfig) -> tuple[F64, F64, F64]:
    """Bandera: for single cubes on sites ``idx``, the colour (CIELAB, median; NaN where too few points are seen)
    of the cube's face towards the camera (clear of its socket) and of its top face near its rim, and the share of
    the top's points seen: (T, 3), (T, 3), (T,).  Were a second cube on it, the top's points would lie under that
    cube and the camera would see the upper cube there instead (its faces: the rays to the top's points pass
    through it).  Points whose ray meets another site's solid on its way, or a character's room on the top,
    are left out."""
    g = cfg.geometry
    c, half = g.cube_mm, g.cube_mm / 2
    cam = sc.pose.camera_position
    n_t = len(idx)
    cx = np.array([sites[i].x_mm for i in idx])
    cy = np.array([sites[i].y_mm for i in idx])
    fl = np.array([sites[i].floor_mm for i in idx])
    u = np.column_stack([cx - cam[0], cy - cam[1]])
    u /= np.maximum(np.linalg.norm(u, axis=1, keepdims=True), 1e-9)
    v = np.column_stack([-u[:, 1], u[:, 0]])
    fa, fz = (m.ravel() for m in np.meshgrid(np.array([-7.5, -4.0, 4.0, 7.5]), np.array([3.5, 6.5, 15.5, 18.5])))
    face = np.stack([cx[:, None] - 0.98 * half * u[:, None, 0] + fa[None, :] * v[:, None, 0],
                     cy[:, None] - 0.98 * half * u[:, None, 1] + fa[None, :] * v[:, None, 1],
                     fl[:, None] + fz[None, :]], axis=-1)  # (T, 16, 3)
    k = 0.8 * half
    ring = np.array([(a, b) for a in (-k, -k / 2, 0.0, k / 2, k) for b in (-k, -k / 2, 0.0, k / 2, k)
                     if max(abs(a), abs(b)) == k])  # (16, 2): a square 0.8 x the half-size out
    top = np.stack([cx[:, None] + ring[None, :, 0], cy[:, None] + ring[None, :, 1],
                    np.repeat((fl + c)[:, None], len(ring), axis=1)], axis=-1)  # (T, 16, 3)
    both = np.concatenate([face, top], axis=1)
    n_f, n_a = face.shape[1], both.shape[1]
    _, lab, ok, _ = _observe(sc, both.reshape(-1, 3), cfg)
    lab = lab.reshape(n_t, n_a, 3)
    ok = ok.reshape(n_t, n_a) & _not_blocked(cam, both, rows, owner, idx, np.column_stack([cx, cy]))
    room = np.column_stack([np.ones(n_t), cx, cy, np.full(n_t, g.character_radius), fl + c,
                            fl + c + g.character_height])
    ok[:, n_f:] &= ~np.asarray(hits(cam, top, room[:, None, None, :]), bool)[..., 0]
    lab_f = np.full((n_t, 3), np.nan)
    lab_t = np.full((n_t, 3), np.nan)
    for t in range(n_t):
        if ok[t, :n_f].sum() >= 6:
            lab_f[t] = _median_rows(lab[t, :n_f][ok[t, :n_f]])
        if ok[t, n_f:].sum() >= 4:
            lab_t[t] = _median_rows(lab[t, n_f:][ok[t, n_f:]])
    return lab_f, lab_t, ok[:, n_f:].mean(axis=1)


def _edge_sharpness(sc: _Scene, st: Site, zs: Sequence[float], cfg: ClassifyBoardConfig,
                    sides: Sequence[tuple[float, float]] | None = None) -> list[F64]:
    """Bandera: how sharp the outline of a stack's top on site ``st`` would be at each height ``zs`` (mm above its
    floor): for each far edge of the top face (its outward side away from the camera: the stack's outline against
    what is behind it) seen at every height, the CIELAB difference of the points ``count_outline_mm`` inside and
    outside it at each height (median of 9 points along the edge).  With ``sides`` (outward directions), those edges
    of the top face instead, far or near (a near edge: between the top and the side face below it)."""
    g = cfg.geometry
    half, d = g.cube_mm / 2, cfg.count_outline_mm
    cam = sc.pose.camera_position
    w, h = sc.pose.image_size
    t = np.linspace(-0.7, 0.7, 9) * half
    rows: list[F64] = []
    for nx, ny in ((1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0)) if sides is None else sides:
        if sides is None and (st.x_mm - cam[0]) * nx + (st.y_mm - cam[1]) * ny <= 0:
            continue  # (a near edge: between the top and a side face, not against the background)
        edge = np.column_stack([st.x_mm + nx * half + ny * t, st.y_mm + ny * half + nx * t])
        sharp: list[float] = []
        # (session 19: the points of every height projected and sampled at once -- pixel by pixel the same numbers:
        # OpenCV projects each point on its own, as it did per height (fewer than 256 points, ``BoardPose.project``'s
        # OpenCV side, kept by projecting them with ``project_each``), and samples each pixel on its own; the colours
        # are still converted per height)
        n_t = len(t)
        side = np.concatenate([np.column_stack([edge[:, 0] - s * nx * d, edge[:, 1] - s * ny * d])
                               for s in (1.0, -1.0)])  # (2 n_t, 2): inside, then outside
        pts_z = np.empty((len(zs), 2 * n_t, 3))
        pts_z[:, :, :2] = side[None]
        for q, z in enumerate(zs):
            pts_z[q, :, 2] = st.floor_mm + z
        px_z = sc.pose.project_each(pts_z.reshape(-1, 3), 2 * n_t).reshape(len(zs), 2 * n_t, 2)
        in_z = (px_z[..., 0] > 2) & (px_z[..., 0] < w - 3) & (px_z[..., 1] > 2) & (px_z[..., 1] < h - 3)
        ok_z = np.asarray(in_z.reshape(len(zs), 2, n_t).all(axis=1), bool)  # (Z, n_t)
        last = len(zs) if ok_z.sum(axis=1).min(initial=n_t) >= 5 else int(np.argmax(ok_z.sum(axis=1) < 5))
        if last:
            seen_z = _sample(sc.image, px_z[:last].reshape(-1, 2)).reshape(last, 2 * n_t, 3)
        for q in range(last):
            ok = ok_z[q]
            lab = linear_to_lab(np.array(seen_z[q])).reshape(2, n_t, 3)
            sharp.append(float(_median_rows(np.linalg.norm(lab[0, ok] - lab[1, ok], axis=1))))
        if len(sharp) == len(zs):
            rows.append(np.array(sharp))
    return rows


def _count_outline(sc: _Scene, sites: Sequence[Site], idx: Sequence[int], cfg: ClassifyBoardConfig) -> list[float]:
    """Bandera: for each site of ``idx``, how much sharper the outline of a two-cube stack's top is than a single
    cube's (NaN where not seen): :func:`_edge_sharpness` at 44 mm less at 22 mm, the mean over the far edges seen."""
    c = cfg.geometry.cube_mm
    out: list[float] = []
    for i in idx:
        rows = _edge_sharpness(sc, sites[i], (c, 2 * c), cfg)
        out.append(float(np.mean([r[1] - r[0] for r in rows])) if rows else float("nan"))
    return out


def _outline_peaks(sc: _Scene, sites: Sequence[Site], idx: Sequence[int], cfg: ClassifyBoardConfig) -> list[F64]:
    """Bandera: for each site of ``idx``, how much sharper the outline of a stack's top is at one and at two cubes'
    height than half a cube below and above that height (``[peak at 22 mm, peak at 44 mm]``, NaN where not seen): the
    sharpness at a height as :func:`_edge_sharpness` gives it, the mean over the far edges seen at every height.  A
    top stands where the outline peaks: below it both sides of the edge lie on the stack's face, above it both on
    what is behind."""
    zs = [k * cfg.geometry.cube_mm for k in (0.5, 1.0, 1.5, 2.0, 2.5)]
    out: list[F64] = []
    for i in idx:
        rows = _edge_sharpness(sc, sites[i], zs, cfg)
        if not rows:
            out.append(np.full(2, np.nan))
            continue
        m = np.mean(rows, axis=0)
        out.append(np.array([m[1] - (m[0] + m[2]) / 2, m[3] - (m[2] + m[4]) / 2]))
    return out


def _socket_counts(sc: _Scene, sites: Sequence[Site], hyps: Sequence[Hypothesis], choice: npt.NDArray[np.int64],
                   cand: npt.NDArray[np.int64], cfg: ClassifyBoardConfig) -> set[int]:
    """Bandera: correct the cube count of sites by the sockets their stacks' faces show
    (:func:`_sockets`); ``choice`` is changed in place, the sites changed are returned.  Only the
    sites ``cand`` (where some probe saw something) are looked at.  An empty
    site whose two-cube stack's upper cube shows sockets on two faces (and a single cube's top shows
    none) holds a tower; else one whose single cube shows them on two faces holds a cube.  A tower
    whose single cube's top shows a socket and whose upper cube shows none is one cube."""
    one = next(j for j, h in enumerate(hyps) if h.cubes == 1)
    two = next(j for j, h in enumerate(hyps) if h.cubes == 2)
    look = cand[(choice[cand] == 0) | (choice[cand] == two) | ((choice[cand] == one) & cfg.socket_height)]
    changed: set[int] = set()
    if not len(look):
        return changed
    rows_o, own_o = _chosen_solids(hyps, choice, sites)
    clear = np.zeros(len(look), bool)
    # (T, 10): a single cube's top, a tower's top, the lower cube's four sides, the upper cube's
    tops = np.full((len(look), 2, 2), np.nan)
    st = np.full((len(look), 10, 3), np.nan)
    s = _sockets(sc, sites, look, rows_o, own_o, cfg, clear, tops, st)
    if cfg.socket_pair > 0:
        # a single cube's top socket clearly dark, and darker than any print behind it explains, with a socket
        # on another face: a cube (an ivory one on the paper, its top's socket over a printed line)
        with np.errstate(invalid="ignore"):
            top_dark = (st[:, 0, 0] > cfg.socket_pair) & (st[:, 0, 0] - st[:, 0, 1] > cfg.socket_pair_print) \
                & (st[:, 0, 2] < cfg.socket_ring)
            side = ((st[:, 2:, 0] - st[:, 2:, 1] > cfg.socket_side) & (st[:, 2:, 2] < cfg.socket_pair_ring)).any(axis=1)
        clear = clear | (top_dark & side)
    s1 = s[:, [0, 2, 3, 4, 5]]
    upper = s[:, 1].astype(np.int64) + s[:, 6:].sum(axis=1)
    top1 = s[:, 0]
    was = choice[look]
    new = np.where(((was == 0) | ((was == one) & cfg.socket_two_seen)) & (upper >= cfg.socket_faces) & ~top1, two,
                   np.where((was == 0) & ((s1.sum(axis=1) >= cfg.socket_faces) | clear), one,
                            np.where((was == two) & top1 & (upper == 0), one, was)))
    if cfg.socket_height:
        new = _socket_height(sc, sites, look, was, new, tops, one, two, cfg)
    for i, k in zip(look, new, strict=True):
        if k != choice[i]:
            choice[i] = k
            changed.add(int(i))
    return changed


def _socket_height(sc: _Scene, sites: Sequence[Site], look: npt.NDArray[np.int64], was: npt.NDArray[np.int64],
                   new: npt.NDArray[np.int64], tops: F64, one: int, two: int, cfg: ClassifyBoardConfig
                   ) -> npt.NDArray[np.int64]:
    """Bandera: the cube count of stacks read as one or two cubes (``was``; ``new`` the counts so far),
    from where the top face's socket is seen.  One cube's top is 22 mm up, two cubes' 44 mm, and each
    top has its socket in the middle (``tops``: how much darker than its ring each shows, beyond the
    print, and the ring's interquartile range).  A socket seen at one height (``socket_height_dark``)
    on an even ring (``socket_height_ring``), and darker there by ``socket_height_margin`` than at the
    other height (where a dark middle on an uneven ring -- a character, a flag's pole across it -- or
    none seen counts as no socket), gives the count.  Not where the two stacks' sockets look alike:
    near 45 degrees up, a tower's upper side socket is seen where one cube's top socket would be, so
    the rays through the upper cube's side sockets the camera sees must pass ``socket_height_sep_mm``
    from one cube's top socket."""
    g = cfg.geometry
    c, half = g.cube_mm, g.cube_mm / 2
    cam = sc.pose.camera_position
    ctr = np.array([[sites[i].x_mm, sites[i].y_mm, sites[i].floor_mm] for i in look])  # (T, 3)
    top1 = ctr + np.array([0.0, 0.0, c])
    # the rays through a tower's upper side sockets (the faces the camera sees), down to one cube's top
    sep1 = np.full(len(look), np.inf)
    for nx, ny in ((1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0)):
        f = ctr + np.array([nx * half, ny * half, 1.5 * c])
        seen = ((cam[None, :] - f)[:, :2] @ np.array([nx, ny])) > 0
        p = f + (f - cam[None, :]) * ((f[:, 2] - top1[:, 2]) / np.maximum(cam[2] - f[:, 2], 1e-6))[:, None]
        d = np.linalg.norm(p[:, :2] - top1[:, :2], axis=1)
        sep1 = np.where(seen, np.minimum(sep1, d), sep1)
    apart = sep1 > cfg.socket_height_sep_mm
    b = tops[:, :, 0]
    even = tops[:, :, 1] < cfg.socket_height_ring  # (NaN: not seen, never even)
    clear = even & (b > cfg.socket_height_dark)
    other = np.where(even, b, -np.inf)  # (a dark middle on an uneven ring, or none seen: no socket there)
    is_one = clear[:, 0] & (b[:, 0] - other[:, 1] > cfg.socket_height_margin)
    is_two = clear[:, 1] & (b[:, 1] - other[:, 0] > cfg.socket_height_margin)
    stack = (was == one) | (was == two)
    if cfg.socket_two_seen:
        stack = stack | (new == one)  # (a cube the sockets have just found on a site the probes left empty)
    out = np.where(stack & apart & is_one & ~is_two, one,
                   np.where(stack & (apart | cfg.socket_two_seen) & is_two & ~is_one, two, new))
    return np.asarray(out, np.int64)


def _sockets(sc: _Scene, sites: Sequence[Site], idx: npt.NDArray[np.int64], rows: F64,
             owner: npt.NDArray[np.int64], cfg: ClassifyBoardConfig,
             strong: npt.NDArray[np.bool_] | None = None, tops: F64 | None = None,
             stats: F64 | None = None) -> npt.NDArray[np.bool_]:
    """Which faces (T, 10: a single cube's top, a tower's top, then the four sides of the lower
    cube and of the upper cube) of the stacks that may stand on each site ``idx`` show a Legends of
    Cubes socket: a round hole in the
    middle of every face, dark inside (little light gets in), on a face of even lightness.  On each
    face the camera sees (not too obliquely, no other site's piece in front of or behind it), the
    middle (5 points within 1.5 mm) must be darker than a ring 7.5 mm out by ``socket_top`` (top
    face) or ``socket_side`` L* -- beyond what the print behind those points would show (a printed
    line can look like a dark middle on an empty cell) -- and the ring must be of even lightness
    (``socket_ring``: not a flag's banner or a piece's edge across it).  The middle must be seen
    whole, the ring at least two thirds of it (a neighbour's piece may hide its far side).  ``strong``
    (T,) is set where the top face's socket is very clear (``socket_strong``); ``tops`` (T, 2, 2) receives
    the two top faces' darkness beyond the print and their ring's interquartile range (NaN: not seen); ``stats``
    (T, 10, 3) each face's darkness, the share of it the print explains and its ring's interquartile range (NaN:
    not seen)."""
    g = cfg.geometry
    c, half = g.cube_mm, g.cube_mm / 2
    cam = sc.pose.camera_position
    ang = np.linspace(0.0, 2 * np.pi, 12, endpoint=False)
    circ = np.column_stack([np.cos(ang), np.sin(ang)])
    disc = np.vstack([[0.0, 0.0], 1.5 * circ[::3], 7.5 * circ])  # (17, 2): 5 in the middle, 12 on the ring
    # faces: (centre offset, normal, in-plane axes), the tops first
    fdefs = [((0.0, 0.0, n * c), (0.0, 0.0, 1.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0)) for n in (1, 2)]
    for k in range(2):
        for nx, ny in ((1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0)):
            fdefs.append(((nx * half, ny * half, (k + 0.5) * c), (nx, ny, 0.0), (-ny, nx, 0.0), (0.0, 0.0, 1.0)))
    off = np.array([f[0] for f in fdefs])
    nrm = np.array([f[1] for f in fdefs])
    e1 = np.array([f[2] for f in fdefs])
    e2 = np.array([f[3] for f in fdefs])
    local = off[:, None, :] + disc[None, :, 0, None] * e1[:, None, :] + disc[None, :, 1, None] * e2[:, None, :]
    ctr = np.array([[sites[i].x_mm, sites[i].y_mm, sites[i].floor_mm] for i in idx])  # (T, 3)
    pts = ctr[:, None, None, :] + local[None]  # (T, F, 17, 3)
    fc = ctr[:, None, :] + off[None]  # (T, F, 3) face centres
    to_cam = cam[None, None, :] - fc
    cos = (to_cam * nrm[None]).sum(axis=2) / np.maximum(np.linalg.norm(to_cam, axis=2), 1e-9)
    out = np.zeros((len(idx), len(fdefs)), bool)
    t_i, f_i = np.nonzero(cos > 0.25)
    if not len(t_i):
        return out
    p = pts[t_i, f_i].reshape(-1, 3)
    w, h = sc.pose.image_size
    px = sc.pose.project(p)
    in_img = ((px[:, 0] > 2) & (px[:, 0] < w - 3) & (px[:, 1] > 2) & (px[:, 1] < h - 3)).reshape(len(t_i), -1)
    ends = segments_to_board(cam, p)
    lab_o = linear_to_lab(np.clip(_sample(sc.image, np.where(in_img.reshape(-1)[:, None], px, 0.0))
                                  / sc.gain.at(ends[:, :2]), 0.0, None))[:, 0].reshape(len(t_i), -1)
    exp, _ = _expected(sc.app, ends[:, :2])
    lab_e = linear_to_lab(exp)[:, 0].reshape(len(t_i), -1)
    ends_f = ends.reshape(len(t_i), -1, 3)
    if cfg.socket_face_to_point:
        # a single cube's face hides what stands behind it: only a solid in front of the point hides the point
        lone = np.isin(f_i, (0, 2, 3, 4, 5))[:, None, None]
        free = in_img & _not_blocked(cam, np.where(lone, p.reshape(ends_f.shape), ends_f), rows, owner, idx[t_i],
                                     ctr[t_i, :2])
    else:
        free = in_img & _not_blocked(cam, ends_f, rows, owner, idx[t_i], ctr[t_i, :2])
    # the middle wholly seen, two thirds of the ring (the ring's statistics over the points seen)
    ok = free[:, :5].all(axis=1) & (free[:, 5:].sum(axis=1) >= 8)
    ring_l = np.where(free[:, 5:], lab_o[:, 5:], np.nan)
    ring_e = np.where(free[:, 5:], lab_e[:, 5:], np.nan)
    q25, ring, q75 = _row_quantiles(ring_l, (0.25, 0.5, 0.75))
    (ring_p,) = _row_quantiles(ring_e, (0.5,))
    dark = ring - lab_o[:, :5].mean(axis=1)
    beyond = dark - np.maximum(ring_p - lab_e[:, :5].mean(axis=1), 0.0)
    need = np.where(f_i < 2, cfg.socket_top, cfg.socket_side)
    shows = ok & (beyond > need) & (q75 - q25 < cfg.socket_ring)
    out[t_i, f_i] = shows
    if stats is not None:
        stats[:] = np.nan
        stats[t_i[ok], f_i[ok]] = np.column_stack([dark, dark - beyond, q75 - q25])[ok]
    if tops is not None:
        tops[:] = np.nan
        tf = ok & (f_i < 2)
        tops[t_i[tf], f_i[tf], 0] = beyond[tf]
        tops[t_i[tf], f_i[tf], 1] = (q75 - q25)[tf]
    if strong is not None:  # a top face whose socket is this clear counts as two faces
        top = ok & (f_i == 0) & (beyond > cfg.socket_strong) & (q75 - q25 < cfg.socket_strong_ring)
        strong[t_i[top]] = True
    return out


def _characters(sc: _Scene, sites: Sequence[Site], idx: npt.NDArray[np.int64], cubes: npt.NDArray[np.int64],
                rows: F64, owner: npt.NDArray[np.int64], colours: Sequence[str] | None,
                cfg: ClassifyBoardConfig, cube_colours: dict[int, F64] | None = None,
                strength: dict[int, tuple[int, int]] | None = None, over_print: bool = False,
                top_seen: dict[int, F64] | None = None) -> list[tuple[str | None, float, float] | None]:
    """The character standing on each stack ``idx`` (``cubes`` high) -- its colour and where it
    stands (board mm) -- or None.  ``cube_colours`` receives each stack's top cube's CIELAB, ``strength`` each
    character's probes showing its colour and the probes over the top seen.  With ``over_print`` (sites read
    empty, where a cube is only supposed) every probe must differ from the print its ray goes on to as well: the
    top it would go on to may not be there.

    The top cube's own colour is read on its face towards the camera.  Probes over the top face at
    the character's body height then show a character where they see a player's colour: another
    hue than the cube's where the ray goes on to the stack's top (the cube's faces differ from each
    other in shading, hardly in hue), another colour than the print where it goes past the stack."""
    g = cfg.geometry
    c, half = g.cube_mm, g.cube_mm / 2
    cam = sc.pose.camera_position
    n_t = len(idx)
    if n_t == 0:
        return []
    cx = np.array([sites[i].x_mm for i in idx])
    cy = np.array([sites[i].y_mm for i in idx])
    top = np.array([sites[i].floor_mm for i in idx]) + cubes * c
    u = np.column_stack([cx - cam[0], cy - cam[1]])
    u /= np.maximum(np.linalg.norm(u, axis=1, keepdims=True), 1e-9)
    v = np.column_stack([-u[:, 1], u[:, 0]])
    fa, fb = np.meshgrid(np.array([-6.0, -3.0, 0.0, 3.0, 6.0]), np.array([4.0, 8.0, 12.0, 16.0]))
    fa, fb = fa.ravel(), fb.ravel()
    face = np.stack([cx[:, None] - 0.98 * half * u[:, None, 0] + fa[None, :] * v[:, None, 0],
                     cy[:, None] - 0.98 * half * u[:, None, 1] + fa[None, :] * v[:, None, 1],
                     top[:, None] - fb[None, :]], axis=-1)  # (T, 20, 3)
    r = cfg.character_reach * half
    gx = np.linspace(-r, r, 5)
    zz = np.linspace(3.0, 0.7 * g.character_height, 3)
    ga, gb, gz = (m.ravel() for m in np.meshgrid(gx, gx, zz, indexing="ij"))
    pts = np.stack([cx[:, None] + ga[None, :], cy[:, None] + gb[None, :], top[:, None] + gz[None, :]], axis=-1)
    n_p, n_f = pts.shape[1], face.shape[1]
    # the top face's corners (a character stands in its middle)
    k = 0.85 * half
    corners = np.stack([cx[:, None] + k * np.array([1.0, -1.0, -1.0, 1.0])[None, :],
                        cy[:, None] + k * np.array([1.0, 1.0, -1.0, -1.0])[None, :],
                        np.repeat(top[:, None], 4, axis=1)], axis=-1)  # (T, 4, 3)
    n_c = 4 if cfg.character_face_deg > 0 else 0
    # the face probes and the probes over the top observed in one go
    both = np.concatenate([face, pts] + ([corners] if n_c else []), axis=1)  # (T, F + P (+ 4), 3)
    n_all = n_f + n_p + n_c
    piece_b, lab_b, ok_b, ends_b = _observe(sc, both.reshape(-1, 3), cfg)
    ends_b = ends_b.reshape(n_t, n_all, 3)
    ctr = np.column_stack([cx, cy])
    ok_b = ok_b.reshape(n_t, n_all)
    if cfg.character_face_to_point:
        # a probe on a solid surface (the face, the top's corners) is seen unless something stands in front of it:
        # what stands behind it, where its ray would go on to the board (or off it), hides nothing
        if sc.structure is None or not len(sc.structure):
            w_i, h_i = sc.pose.image_size
            px_b = sc.pose.project(both.reshape(-1, 3)).reshape(n_t, n_all, 2)
            seen_b = (px_b[..., 0] > 2) & (px_b[..., 0] < w_i - 3) & (px_b[..., 1] > 2) & (px_b[..., 1] < h_i - 3)
            if cfg.min_lightness > 0:
                seen_b &= lab_b.reshape(n_t, n_all, 3)[..., 0] >= cfg.min_lightness
            surf = np.ones(n_all, bool)
            surf[n_f:n_f + n_p] = False
            ok_b = np.where(surf[None, :], seen_b, ok_b)
        to = both.copy()
        to[:, n_f:n_f + n_p] = ends_b[:, n_f:n_f + n_p]
        ok_b &= _not_blocked(cam, to, rows, owner, idx, ctr, mask=ok_b)
    else:
        ok_b &= _not_blocked(cam, ends_b, rows, owner, idx, ctr, mask=ok_b)
    lab_b = lab_b.reshape(n_t, n_all, 3)
    fok, flab = ok_b[:, :n_f], lab_b[:, :n_f]
    ok, lab, ends = ok_b[:, n_f:n_f + n_p], lab_b[:, n_f:n_f + n_p], ends_b[:, n_f:n_f + n_p]
    piece = piece_b.reshape(n_t, n_all)[:, n_f:n_f + n_p]
    cok, clab = ok_b[:, n_f + n_p:], lab_b[:, n_f + n_p:]
    if n_c:
        # a corner seen past the room a character standing on the top may take says nothing of the face
        room = np.column_stack([np.ones(n_t), cx, cy, np.full(n_t, g.character_radius + 4.0), top,
                                top + g.character_height])
        cok &= ~np.asarray(hits(cam, corners, room[:, None, None, :]), bool)[..., 0]
    own = np.stack([np.array([0.0, cx[t], cy[t], half, top[t] - cubes[t] * c, top[t]]) for t in range(n_t)])
    on_stack = np.asarray(hits(cam, ends, own[:, None, None, :]), bool)[..., 0]  # (T, P)
    chroma = np.hypot(lab[..., 1], lab[..., 2])
    hue = np.degrees(np.arctan2(lab[..., 2], lab[..., 1]))
    out: list[tuple[str | None, float, float] | None] = []
    for t in range(n_t):
        from_top = cfg.character_face_to_point and n_c > 0 and not fok[t].any() and int(cok[t].sum()) >= 2
        if (not fok[t].any() and not from_top) or ok[t].sum() < 8:
            out.append(None)
            continue
        if from_top:
            # the top cube's face towards the camera hidden (a taller stack in front): its colour read on its top's
            # corners, which a character standing in the middle leaves bare
            cube_lab = _median_rows(clab[t, cok[t]])
        else:
            cube_lab = _median_rows(flab[t, fok[t]])
            if cube_colours is not None:
                cube_colours[int(idx[t])] = cube_lab
        if cfg.character_banner_deg > 0 and sites[int(idx[t])].key[0] in cfg.flag_columns:
            # a royal tower's banner or pole seen in front of the top cube's face (a stripe of the flag's
            # colour, which is its character's) would make the cube look like the character
            f_lab = flab[t]
            f_hue = np.degrees(np.arctan2(f_lab[:, 2], f_lab[:, 1]))
            plastic = (np.hypot(f_lab[:, 1], f_lab[:, 2]) > cfg.player_chroma) \
                & (_player_hue_deg(f_hue, colours) <= cfg.character_banner_deg)
            if (fok[t] & ~plastic).sum() >= 4:
                cube_lab = _median_rows(flab[t, fok[t] & ~plastic])
        other_hue = _other_hue(hue[t], cube_lab, colours, cfg)
        if top_seen is not None and (ok[t] & on_stack[t]).sum() >= 8:
            # (the top as its probes see it, a character and all)
            top_seen[int(idx[t])] = lab[t, ok[t] & on_stack[t]]
        differs = np.where(on_stack[t], other_hue, piece[t] > 0.8)
        if cfg.character_past_piece > 0:
            # (session 18) a probe whose ray goes on to the stack's top but whose pixel shows what its ray would meet
            # past the stack (the print or the table there, no more unlike it than this) sees past the top's edge
            # (the pose a little off, the edge's blur): a green table seen past a dark tower is no character
            differs &= ~on_stack[t] | (piece[t] > cfg.character_past_piece)
        if over_print:
            differs &= piece[t] > 0.8
        strong = ok[t] & differs & (chroma[t] > cfg.player_chroma)
        sel = np.nonzero(strong)[0]
        names = _hue_names(lab[t, sel], cfg, colours)
        if len(names) < max(3, cfg.character_min_share * ok[t].sum()):
            out.append(None)
            continue
        best = max(dict.fromkeys(names), key=names.count)  # (a tie: the first seen, not the hash order)
        if cfg.character_one_colour and names.count(best) < max(3, cfg.character_min_share * ok[t].sum()):
            # (session 18) a character is of one colour: probes of several colours, none on enough of them, are
            # not one (the table's or the print's varied colour seen past the top, a neighbour's banner)
            out.append(None)
            continue
        mine = sel[[n == best for n in names]]
        if n_c and cok[t].sum() >= 2 and sites[int(idx[t])].key[0] not in cfg.flag_columns:
            # (not where a royal tower may stand: its banner, of its character's colour, may be in front of
            # the corners)
            # the top face itself (a teal cube's top looks green in warm light) is not a character
            top_lab = _median_rows(clab[t, cok[t]])
            seen_lab = _median_rows(lab[t, mine])
            if math.hypot(float(top_lab[1]), float(top_lab[2])) >= cfg.min_chroma:
                dh_top = abs((math.degrees(math.atan2(seen_lab[2], seen_lab[1]))
                              - math.degrees(math.atan2(top_lab[2], top_lab[1])) + 180.0) % 360.0 - 180.0)
                if dh_top <= cfg.character_face_deg:
                    rest: list[int] = []
                    if cfg.character_top_rest:
                        # ... but probes of another hue than the top's, enough of them, still show one (a green
                        # character on a teal cube whose face, in shade, is grey: the cube's top was taken for it)
                        apart = _other_hue(hue[t, sel], top_lab, colours, cfg)
                        rest = [int(q) for q, a in zip(sel, apart, strict=True) if a]
                    names_r = [n for q, n in zip(sel, names, strict=True) if int(q) in rest]
                    if len(names_r) < max(3, cfg.character_min_share * ok[t].sum()):
                        out.append(None)
                        continue
                    best = max(dict.fromkeys(names_r), key=names_r.count)
                    mine = np.array([q for q, n in zip(sel, names, strict=True) if int(q) in rest and n == best],
                                    np.int64)
        if cfg.character_proto_deg > 0 and best in HUES and len(mine):
            # (session 18) a character's plastic is seen near its colour's hue: probes named after the nearest player
            # colour but far from it are a cube's top (a teal top named green, a purple one blue)
            d_best = np.abs((hue[t, mine] - HUES[best] + 180.0) % 360.0 - 180.0)
            if float(_median_rows(d_best)) > cfg.character_proto_deg:
                out.append(None)
                continue
        # where it stands on the top: the lowest probes that saw it (higher ones also see it through
        # their rays going on down behind them: biased towards the camera)
        low = mine[pts[t, mine, 2] <= top[t] + zz[0] + 1e-6]
        at = low if len(low) >= 2 else mine
        if strength is not None:
            strength[int(idx[t])] = (len(mine), int(ok[t].sum()))
        out.append((best, float(pts[t, at, 0].mean()), float(pts[t, at, 1].mean())))
    return out


def _other_hue(hue: F64, ref_lab: F64, colours: Sequence[str] | None, cfg: ClassifyBoardConfig
               ) -> npt.NDArray[np.bool_]:
    """Which probes of hues ``hue`` (degrees) show another colour than a cube's surface of colour ``ref_lab``
    (CIELAB): every probe if that surface is grey."""
    c_cube = float(np.hypot(ref_lab[1], ref_lab[2]))
    h_cube = math.degrees(math.atan2(ref_lab[2], ref_lab[1]))
    dh = np.abs((hue - h_cube + 180.0) % 360.0 - 180.0)
    other_hue = (dh > cfg.character_hue_deg) if c_cube >= cfg.min_chroma else np.ones(len(hue), bool)
    if c_cube >= cfg.min_chroma and cfg.character_near_deg < cfg.character_hue_deg:
        # a hue nearer a player's plastic than the cube's, by a clear margin
        nearer = dh - _player_hue_deg(hue, colours) > cfg.character_nearer_deg
        other_hue |= (dh > cfg.character_near_deg) & nearer
    if c_cube >= cfg.min_chroma and cfg.character_toward_deg > 0:
        # a hue turned away from the cube's towards a player's plastic: by as much as it came nearer that plastic
        # (a blue character on a purple cube is seen some 20 degrees from the cube, bluer, while the prototypes
        # put it about as near purple as blue; a bare top's hue stays within 15 degrees of its face's)
        c_deg = float(_player_hue_deg(np.array([h_cube]), colours)[0])
        other_hue |= (dh > cfg.character_toward_deg) \
            & (_player_hue_deg(hue, colours) < c_deg - cfg.character_toward_deg)
    return np.asarray(other_hue, bool)


def _shape_by_counts(out: Sequence[CellReading], shape_open: dict[int, tuple[str, float]]) -> dict[int, str]:
    """Gridopolis (``part_counts``, session 19): the kinds the rules force on the pieces of ``shape_open`` (site index
    -> its colour and how box-like its outline looked; their shape not told by the picture).  A player has three
    markers and two blocker boxes (docs/rules/gridopolis.md, "each player's parts"): with ``m`` markers and ``b``
    boxes of its colour read on the other sites and ``n`` such pieces, at least ``m + n - 3`` of them are boxes (the
    most box-like) and at least ``b + n - 2`` markers (the least); nothing is forced where both cannot hold (a
    reading elsewhere is wrong) or neither is needed.  Returns site index -> "blocker" / "pawn"."""
    from engine.gridopolis.layout import MARKERS_PER_PLAYER, START_BLOCKERS

    markers: Counter[str] = Counter()
    boxes: Counter[str] = Counter()
    for j, r in enumerate(out):
        if j in shape_open or r.colour is None:
            continue
        if r.kind in ("pawn", "king"):
            markers[r.colour] += 1
        elif r.kind == "blocker":
            boxes[r.colour] += 1
    got: dict[int, str] = {}
    for colour in sorted({c for c, _ in shape_open.values()}):
        open_c = sorted((i for i, (c, _) in shape_open.items() if c == colour), key=lambda i: -shape_open[i][1])
        n = len(open_c)
        need_box = max(0, markers[colour] + n - MARKERS_PER_PLAYER)
        need_marker = max(0, boxes[colour] + n - START_BLOCKERS)
        if need_box + need_marker > n:
            continue
        for i in open_c[:need_box]:
            got[i] = "blocker"
        for i in open_c[n - need_marker:] if need_marker else ():
            got[i] = "pawn"
    return got


def _box_or_marker(sc: _Scene, sites: Sequence[Site], idx: npt.NDArray[np.int64], body: Sequence[F64 | None],
                   rows: F64, owner: npt.NDArray[np.int64], cfg: ClassifyBoardConfig) -> list[tuple[int, float]]:
    """Gridopolis: a blocker box or a marker on each site ``idx``?  Points on the faces of a box there
    (its top, its sides facing the camera) whose rays pass ``box_margin_mm`` clear of a marker (pawn
    or king: lower and narrower) show the box's colour (``body``: the colour seen on the marker's
    place) if it is a box, what lies behind if it is a marker.  Returns, per site, how many such
    points are seen (not hidden by the grid-set or other sites' pieces) and the share showing the
    box's colour (with ``box_faces_equal``: the mean of the top's share and the sides' share -- a
    box's top is lit from above, its sides are often in shade and have three times the points)."""
    g = cfg.geometry
    hb, hz, m = g.blocker_half, g.blocker_height, cfg.box_margin_mm
    cam = sc.pose.camera_position
    s = np.linspace(-1.0, 1.0, 7) * (hb - 1.0)
    loc = [(a, b, hz - 0.5, 0.0, 0.0) for a in s for b in s]
    for z in np.linspace(2.0, hz - 1.0, 5):
        for t in s:
            loc += [(t, -hb + 0.3, z, 0.0, -1.0), (hb - 0.3, t, z, 1.0, 0.0), (t, hb - 0.3, z, 0.0, 1.0),
                    (-hb + 0.3, t, z, -1.0, 0.0)]
    local = np.array(loc)
    top = (local[:, 3] == 0) & (local[:, 4] == 0)  # the points on the box's top
    base = np.array([[sites[i].x_mm, sites[i].y_mm, sites[i].floor_mm] for i in idx], np.float64)
    pts = base[:, None, :] + local[None, :, :3]  # (T, P, 3)
    to_cam = cam[None, None, :2] - pts[..., :2]
    facing = (local[None, :, 3] * to_cam[..., 0] + local[None, :, 4] * to_cam[..., 1] > 0) | (
        (local[:, 3] == 0) & (local[:, 4] == 0))[None, :]
    n_t, n_p = pts.shape[:2]
    ends = segments_to_board(cam, pts.reshape(-1, 3)).reshape(n_t, n_p, 3)
    marker = np.stack([np.array([[1.0, b[0], b[1], g.marker_radius + m, b[2], b[2] + g.pawn_height + m],
                                 [0.0, b[0], b[1], g.marker_square + m, b[2], b[2] + g.pawn_height + m],
                                 [1.0, b[0], b[1], g.crown_radius + m, b[2], b[2] + g.king_height + m]])
                       for b in base])  # (T, 3, 6)
    # (only the facing points are tried against the marker, only those it leaves against the others)
    t_i, p_i = np.nonzero(facing)
    use = np.zeros((n_t, n_p), bool)
    use[t_i, p_i] = ~np.asarray(hits(cam, ends[t_i, p_i], marker[t_i]), bool).any(axis=1)
    use &= _not_blocked(cam, ends, rows, owner, idx, base[:, :2], mask=use)
    piece = np.zeros((n_t, n_p))
    lab = np.zeros((n_t, n_p, 3))
    if use.any():  # only the points that can tell are looked at in the picture
        piece[use], lab[use], ok, _ = _observe(sc, pts[use], cfg)
        use[use] = ok
        if cfg.box_own_pad and sc.structure is not None and sc.structure_lab is not None and len(sc.structure):
            # a point showing the colour of the pad the site stands on (pose errors put a ray meant for the
            # print beside it on the pad) does not show a box: a marker on a kingerizer of its colour
            pad = _solid_under(sc.structure, base)
            t_u, p_u = np.nonzero(use & (pad >= 0)[:, None])
            for labs in (sc.structure_lab, sc.structure_own_lab) if len(t_u) else ():
                if labs is not None:  # (the pad's colour as its group shows it, and on its own ring)
                    piece[t_u, p_u] = np.minimum(piece[t_u, p_u], _pieceness(lab[t_u, p_u], labs[pad[t_u]], cfg))
    chroma = np.hypot(lab[..., 1], lab[..., 2])
    hue = np.degrees(np.arctan2(lab[..., 2], lab[..., 1]))
    out: list[tuple[int, float]] = []
    for t in range(n_t):
        ref = body[t]
        same = (piece[t] > 0.5) & ((chroma[t] > cfg.min_chroma) | (not cfg.box_hue))
        if cfg.box_hue and ref is not None and math.hypot(ref[1], ref[2]) >= cfg.min_chroma:
            dh = np.abs((hue[t] - math.degrees(math.atan2(ref[2], ref[1])) + 180.0) % 360.0 - 180.0)
            same &= dh <= cfg.character_hue_deg
        n = int(use[t].sum())
        share = float(same[use[t]].mean()) if n else 0.0
        if cfg.box_faces_equal:
            faces = [same[f] for f in (use[t] & top, use[t] & ~top) if f.sum() >= 3]
            if faces:
                share = float(np.mean([f.mean() for f in faces]))
        out.append((n, share))
    return out


def _crown_blueness(sc: _Scene, sites: Sequence[Site], cfg: ClassifyBoardConfig, min_points: int = 6
                    ) -> list[float | None]:
    """Gridopolis: per marker site, how much bluer (log of linear blue over green) the middle of the marker's top
    and up to 3.5 mm above it (a king's crown, 13 mm across) shows than the rim of its top (8.5-9.5 mm out, clear
    of the crown), both in the light falling on the top: the gold crown has far more blue in it than a yellow
    marker's plastic.  None where either is seen on fewer than ``min_points`` points."""
    g = cfg.geometry
    ang = np.linspace(0.0, 2.0 * np.pi, 12, endpoint=False)
    crown = [(0.0, 0.0, g.pawn_height + dz) for dz in (1.5, 3.5)] + [
        (r * math.cos(t), r * math.sin(t), g.pawn_height + dz) for r in (2.5, 4.5) for t in ang for dz in (1.5, 3.5)]
    rim = [(r * math.cos(t), r * math.sin(t), g.pawn_height - 0.3) for r in (8.5, 9.5) for t in ang]
    local = np.array(crown + rim)
    n_c = len(crown)
    lab, ok = _observe_at_sites(sc, sites, local, cfg)
    out: list[float | None] = []
    for t in range(len(sites)):
        parts = []
        for sel in (slice(0, n_c), slice(n_c, None)):
            use = ok[t, sel]
            if use.sum() < min_points:
                break
            lin = lab_to_linear(_median_rows(lab[t, sel][use])[None, :])[0]
            parts.append(math.log(max(float(lin[2]), 1e-3) / max(float(lin[1]), 1e-3)))
        out.append(parts[0] - parts[1] if len(parts) == 2 else None)
    return out


def _crown_relief(sc: _Scene, sites: Sequence[Site], cfg: ClassifyBoardConfig, min_points: int = 12
                  ) -> list[float | None]:
    """Gridopolis: per marker site, the span of L* (90th less 10th percentile) seen on its top and up to 4 mm above
    it within 6 mm of its middle (where a king's crown stands: its points and rim, a relief lit and shaded unevenly;
    a pawn's top is one flat face).  None where fewer than ``min_points`` points are seen."""
    g = cfg.geometry
    ang = np.linspace(0.0, 2.0 * np.pi, 12, endpoint=False)
    local = np.array([(0.0, 0.0, g.pawn_height + dz) for dz in (0.5, 2.0, 4.0)]
                     + [(r * math.cos(t), r * math.sin(t), g.pawn_height + dz)
                        for r in (1.5, 3.0, 4.5, 6.0) for t in ang for dz in (0.5, 2.0, 4.0)])
    lab, ok = _observe_at_sites(sc, sites, local, cfg)
    out: list[float | None] = []
    for t in range(len(sites)):
        light = lab[t, ok[t], 0]
        out.append(float(np.percentile(light, 90) - np.percentile(light, 10)) if len(light) >= min_points else None)
    return out


def _part_rules(hyps: Sequence[Hypothesis], groups: npt.NDArray[np.int64]
                ) -> tuple[npt.NDArray[np.bool_], dict[int, str]]:
    """Gridopolis: what the rules allow on each site, given its pad's group (``structure_groups``: 0 a
    hyper-pad, 1-4 a seat's kingerizer, in the order of ``engine.gridopolis.layout.SEATS``): (K, S) with no
    blocker box on a kingerizer or a hyper-pad (docs/rules/gridopolis.md, "Caja bloqueadora": "not occupied by
    a kingerizer, hyper-pad or player's marker"), and the kingerizers' sites with their player's colour."""
    from engine.gridopolis.layout import SEATS

    owners = [s.colour for s in SEATS.values()]
    allowed = np.ones((len(hyps), len(groups)), bool)
    for k, h in enumerate(hyps):
        if h.kind == "blocker":
            allowed[k, groups >= 0] = False
    start_of = {int(i): owners[int(groups[i]) - 1] for i in np.nonzero(groups >= 1)[0]}
    return allowed, start_of


def _observe_at_sites(sc: _Scene, sites: Sequence[Site], local: F64, cfg: ClassifyBoardConfig
                      ) -> tuple[F64, npt.NDArray[np.bool_]]:
    """The pictures' L*a*b* (T, P, 3) and whether each is seen (T, P) at the points ``local`` (P, 3: mm
    from each site's floor point) around every one of the T ``sites``."""
    base = np.array([[s.x_mm, s.y_mm, s.floor_mm] for s in sites], np.float64)
    _, lab, ok, _ = _observe(sc, (base[:, None, :] + local[None, :, :]).reshape(-1, 3), cfg)
    return lab.reshape(len(sites), len(local), 3), ok.reshape(len(sites), len(local))


def _crowned(sc: _Scene, sites: Sequence[Site], cfg: ClassifyBoardConfig) -> list[bool]:
    """Is the marker on each of ``sites`` a king (flipped: its gold crown up)?  Probes just above
    the pawn's top that show gold -- a yellow hue unlike the marker's own colour -- are the crown.
    (A yellow player's crown is not told this way: the shape alone decides.)"""
    g = cfg.geometry
    r = 0.8 * g.crown_radius
    gx = np.linspace(-r, r, 4)
    local = np.array([(a, b, g.pawn_height + z) for a in gx for b in gx for z in (1.5, 3.0, 4.5)])
    lab_t, ok_t = _observe_at_sites(sc, sites, local, cfg)
    lab, ok = lab_t.reshape(-1, 3), ok_t.reshape(-1)
    chroma = np.hypot(lab[:, 1], lab[:, 2])
    hue = np.degrees(np.arctan2(lab[:, 2], lab[:, 1]))
    gold = (ok & (chroma > cfg.player_chroma) & (np.abs((hue - HUES["yellow"] + 180) % 360 - 180) < 25.0))
    n_ok = ok.reshape(len(sites), -1).sum(axis=1)
    n_gold = gold.reshape(len(sites), -1).sum(axis=1)
    return [bool(n_ok[i] >= 8 and n_gold[i] >= max(3, cfg.crown_min_share * n_ok[i])) for i in range(len(sites))]


def _flags(sc: _Scene, sites: Sequence[Site], idx: npt.NDArray[np.int64],
           character: Sequence[tuple[str | None, float, float] | None], rows: F64,
           owner: npt.NDArray[np.int64], colours: Sequence[str] | None, cfg: ClassifyBoardConfig,
           cube_colours: dict[int, F64] | None = None, notes: dict[int, str] | None = None,
           counts: dict[int, dict[str, int]] | None = None,
           hidden: tuple[npt.NDArray[np.bool_], int] | None = None) -> list[str | None]:
    """The colour of the flag on each two-cube tower ``idx``, or None: probes around the tower's top
    at the banner's height whose rays meet neither its character nor another piece, showing one
    player's colour.  A ray going on to the tower's top cube counts when its colour is clearly not
    that cube's (``cube_colours``: the banner stands in front of the tower); one going on to the
    lower cube (another colour) does not.  With ``flag_rails`` only the probes of a colour whose royal
    tower may stand on the tower's square count (:func:`bandera_flag_rails`; the others see a
    character, a cube or another tower's banner past it); where the probes alone would have read a
    flag of a colour that may not stand there, ``notes`` receives that colour (per site index).
    ``counts`` receives, per site index, how many probes show each colour (of those counted).  ``hidden`` (a
    mask of the picture shrunk so many times: a hand) leaves out the probes seen on it."""
    g = cfg.geometry
    n_t = len(idx)
    if n_t == 0:
        return []
    cam = sc.pose.camera_position
    c, half = g.cube_mm, g.cube_mm / 2
    cx = np.array([sites[i].x_mm for i in idx])
    cy = np.array([sites[i].y_mm for i in idx])
    floor = np.array([sites[i].floor_mm for i in idx])
    top = floor + 2 * c
    radii = np.linspace(0.08, 1.0, cfg.flag_rings) * g.flag_reach
    ang = np.linspace(0, 2 * np.pi, cfg.flag_rays, endpoint=False)
    lo, hi = g.flag_banner
    lo_c = max(lo, g.character_height + 1.5)
    rr, aa, kk = (m.ravel() for m in np.meshgrid(radii, ang, np.linspace(0.0, 1.0, 3), indexing="ij"))
    lo_t = np.where(np.array([ch is not None for ch in character], bool), lo_c, lo)
    zz = lo_t[:, None] + 1.0 + kk[None, :] * (hi - 1.0 - (lo_t[:, None] + 1.0))
    pts = np.stack([np.broadcast_to(cx[:, None] + rr * np.cos(aa), zz.shape),
                    np.broadcast_to(cy[:, None] + rr * np.sin(aa), zz.shape), top[:, None] + zz], axis=-1)
    n_p = pts.shape[1]
    behind: list[F64] = []
    piece, lab, ok, ends = _observe(sc, pts.reshape(-1, 3), cfg, expected_out=behind)
    ends = ends.reshape(n_t, n_p, 3)
    piece, lab = piece.reshape(n_t, n_p), lab.reshape(n_t, n_p, 3)
    lab_b = behind[0].reshape(n_t, n_p, 3)
    # the room every other tower's flag may take: a ray through it may be seeing that flag
    flag_rooms = np.column_stack([np.ones(n_t), cx, cy, np.full(n_t, g.flag_reach), top + lo, top + g.flag_height])
    ok = ok.reshape(n_t, n_p)
    if hidden is not None:
        ok &= ~_probes_on_mask(sc, pts.reshape(-1, 3), hidden[0], hidden[1]).reshape(n_t, n_p)
    ok &= _not_blocked(cam, ends, rows, owner, idx, np.column_stack([cx, cy]), mask=ok)  # only usable probes tried
    in_room = np.asarray(hits(cam, ends, flag_rooms[None, None, :, :]), bool)  # (T, P, T)
    in_room[:, :, np.arange(n_t)] &= ~np.eye(n_t, dtype=bool)[:, None, :]
    # the character hides a flag probe only where it stands (found by _characters), with some room
    # (unless ``flag_character_blocks`` is off)
    body_r = g.character_body_radius + cfg.character_room

    def own_solids(t: int) -> F64:  # the top cube, the lower cube, the character's body
        ch = character[t]
        at = (ch[1], ch[2]) if ch is not None else (cx[t], cy[t])
        return np.stack([np.array([0.0, cx[t], cy[t], half + cfg.flag_margin, top[t] - c, top[t] + 1.0]),
                         np.array([0.0, cx[t], cy[t], half + cfg.flag_margin, floor[t], top[t] - c]),
                         np.array([1.0, at[0], at[1], body_r if ch is not None else 0.0, top[t],
                                   top[t] + g.character_body + 1.0])])

    own = np.stack([own_solids(t) for t in range(n_t)])  # (T, 3, 6)
    # (T, P, 3): top cube, lower cube, character (boxes and the cylinder apart: each test is cheaper alone)
    # (Bandera: a banner stands as often in front of its character, in the same colour, as beside it,
    # so rays going on to the character count there: ``flag_character_blocks`` off)
    hit_char = np.asarray(hits(cam, ends, own[:, None, 2:, :]), bool) if cfg.flag_character_blocks \
        else np.zeros((n_t, n_p, 1), bool)
    hit_own = np.concatenate([np.asarray(hits(cam, ends, own[:, None, :2, :]), bool), hit_char], axis=2)
    blocked = hit_own[..., 1] | hit_own[..., 2]
    hue = np.degrees(np.arctan2(lab[..., 2], lab[..., 1]))
    for t in range(n_t):
        cl = cube_colours.get(int(idx[t])) if cube_colours is not None else None
        on_tower = hit_own[t, :, 0]
        if cl is None or math.hypot(cl[1], cl[2]) < cfg.min_chroma:
            # a grey / white / black cube: any colourful probe is not the cube
            blocked[t] |= on_tower & (np.hypot(lab[t, :, 1], lab[t, :, 2]) < cfg.player_chroma)
        else:
            dh = np.abs((hue[t] - math.degrees(math.atan2(cl[2], cl[1])) + 180.0) % 360.0 - 180.0)
            blocked[t] |= on_tower & (dh <= cfg.character_hue_deg)
    d = np.hypot(pts[..., 0, None] - cx[None, None, :], pts[..., 1, None] - cy[None, None, :])  # (T, P, T)
    chroma = np.hypot(lab[..., 1], lab[..., 2])
    # a banner has its own colour: a paler or darker shade of what lies behind (a coloured table's
    # edge blurred with the paper) is not one; a more saturated one, once its shading is undone, is (a
    # banner over a pale zone of its colour)
    c_b = np.hypot(lab_b[..., 1], lab_b[..., 2])
    dh_b = np.abs((hue - np.degrees(np.arctan2(lab_b[..., 2], lab_b[..., 1])) + 180.0) % 360.0 - 180.0)
    k_b = np.clip(lab_b[..., 0] / np.maximum(lab[..., 0], 1.0), 1.0, cfg.shade_gain_max)  # shading undone
    own_hue = (c_b < cfg.min_chroma) | (dh_b > cfg.character_hue_deg) | (k_b * chroma > c_b + cfg.flag_chroma)
    seen = ok & ~blocked & (piece > 0.8) & (chroma > cfg.flag_chroma) & own_hue

    def decide(claims: npt.NDArray[np.bool_]) -> tuple[list[str | None], npt.NDArray[np.int64]]:
        # a ray through the room of a claiming tower's flag may be seeing that flag, and a probe
        # nearer a claiming tower belongs to that tower's flag
        use = ok & ~blocked & ~(in_room & claims[None, None, :]).any(axis=2)
        dd = np.where(claims[None, None, :] | np.eye(n_t, dtype=bool)[:, None, :], d, np.inf)
        use &= dd.argmin(axis=2) == np.arange(n_t)[:, None]
        strong = use & seen
        res: list[str | None] = []
        n_strong = np.zeros(n_t, np.int64)
        for t in range(n_t):
            names = _hue_names(lab[t, strong[t]], cfg, colours) if use[t].sum() >= 8 else []
            if rails is not None:
                names = [n for n in names if n in rails[t]]
            if counts is not None and claims.all():
                counts[int(idx[t])] = {n: names.count(n) for n in set(names) if n is not None}
            n_strong[t] = len(names)
            if len(names) < max(cfg.flag_min_probes, cfg.flag_min_share * use[t].sum()):
                res.append(None)
                continue
            best = max(dict.fromkeys(names), key=names.count)  # (a tie: the first seen, not the hash order)
            res.append(best if names.count(best) >= cfg.flag_agree * len(names) else None)
        return res, n_strong

    # first every tower may have a flag; then a tower without one found looks again, sharing the
    # room between towers only with those whose flag was found (next to a plain tower, a banner
    # reaching over towards it is this tower's)
    rails: list[frozenset[str]] | None = None
    raw: list[str | None] = [None] * n_t
    if cfg.flag_rails:
        table = bandera_flag_rails()
        keys = [(int(sites[int(i)].key[0]), int(sites[int(i)].key[1])) for i in idx]
        raw, _ = decide(np.ones(n_t, bool))  # what the probes alone show
        rails = [table.get(k, frozenset()) for k in keys]
    out, _ = decide(np.ones(n_t, bool))
    found = np.array([f is not None for f in out], bool)
    while n_t > 1 and not found.all():  # one tower at a time, the clearest first
        again, n_strong = decide(found)
        new = [t for t in range(n_t) if not found[t] and again[t] is not None]
        if not new:
            break
        t = max(new, key=lambda j: int(n_strong[j]))
        out[t] = again[t]
        found[t] = True
    if rails is not None and notes is not None:
        for t in range(n_t):
            r = raw[t]
            if r is not None and r not in rails[t] and out[t] != r:
                notes[int(idx[t])] = r
    return out


def _token_match(lab: F64, art: F64, piece: F64, darker: F64, cfg: ClassifyBoardConfig) -> npt.NDArray[np.bool_]:
    """(..., K): does each probe's colour look like token kind k's printed face?  Printed card seen
    through a camera keeps its hue but loses chroma (ink on card, light, denoising): a chromatic kind
    matches by hue (within ``token_hue_deg``) with at least a third of the printed chroma and a
    similar lightness; a grey kind matches a grey clearly darker than the paper around it."""
    l_o, a_o, b_o = lab[..., 0, None], lab[..., 1, None], lab[..., 2, None]
    c_o = np.hypot(a_o, b_o)
    h_o = np.degrees(np.arctan2(b_o, a_o))
    l_k, a_k, b_k = art[:, 0], art[:, 1], art[:, 2]
    c_k = np.hypot(a_k, b_k)
    h_k = np.degrees(np.arctan2(b_k, a_k))
    dh = np.abs((h_o - h_k + 180.0) % 360.0 - 180.0)
    chromatic = (c_k >= 15.0) & (dh <= cfg.token_hue_deg) & (c_o >= 0.33 * c_k) & (c_o <= 1.5 * c_k + 10) \
        & (np.abs(l_o - l_k) <= cfg.token_light_tol) & (piece[..., None] > 0.3)
    grey = (c_k < 15.0) & (c_o < 9.0) & (l_o <= l_k + 8.0) & (l_o >= l_k - cfg.token_light_tol) \
        & (darker[..., None] > 10.0)
    return np.asarray(chromatic | grey, bool)


def _classify_tokens(sc: _Scene, sites: Sequence[Site], kinds: Sequence[str] | None,
                     obstacles: F64 | None, cfg: ClassifyBoardConfig) -> list[CellReading]:
    """Quirky Circuits: flat printed tokens.  For every cell a grid of probes on the token's top
    (2.5 mm up) is compared with each token kind's printed colour (:data:`TOKEN_ART`); a kind
    covering enough of the cell is there (two tokens may share a cell).  Probes well above any token
    that still see something mark a covered cell (a hand; the robot, whose cell comes from its tag)."""
    from vision.board_pieces import TOKEN_ART

    names = [k for k in (kinds or TOKEN_ART) if k in TOKEN_ART]
    art = linear_to_lab(srgb8_to_linear(np.array([TOKEN_ART[k] for k in names], np.float64)))
    c = sc.pose.spec.cell_mm
    g = np.linspace(-0.36, 0.36, 9) * c
    gx, gy = np.meshgrid(g, g)
    n_s, n_g = len(sites), gx.size
    pts = np.zeros((n_s, n_g, 3))
    pts[..., 0] = np.array([s.x_mm for s in sites])[:, None] + gx.ravel()[None, :]
    pts[..., 1] = np.array([s.y_mm for s in sites])[:, None] + gy.ravel()[None, :]
    pts[..., 2] = 2.5
    piece, lab, ok, ends = _observe(sc, pts.reshape(-1, 3), cfg)
    exp, _ = _expected(sc.app, ends[:, :2])
    darker = (linear_to_lab(exp)[:, 0] - lab[:, 0]).reshape(n_s, n_g)  # L* below the print's
    piece, ok, lab = piece.reshape(n_s, n_g), ok.reshape(n_s, n_g), lab.reshape(n_s, n_g, 3)
    if obstacles is not None and len(obstacles):  # the robot's body hides what is behind it
        ok &= ~np.asarray(hits(sc.pose.camera_position, ends, obstacles), bool).any(axis=1).reshape(n_s, n_g)
    hand: list[npt.NDArray[np.bool_]] = []
    covered = _covered_sites(sc, sites, 5.0, cfg, hand)
    past = np.ones((n_s, n_g), bool)  # probes not behind the hand
    if cfg.token_past_hand > 0 and hand and covered.any():
        past = ~_probes_on_mask(sc, pts.reshape(-1, 3), hand[0], cfg.cover_scale).reshape(n_s, n_g)
    near = _token_match(lab, art, piece, darker, cfg) & ok[..., None]
    grey_kind = np.hypot(art[:, 1], art[:, 2]) < 15.0
    pale_kind = ~grey_kind & (np.hypot(art[:, 1], art[:, 2]) < cfg.token_dot_pale)
    dot_kind = grey_kind | pale_kind  # (kinds told by their dot)
    out: list[CellReading] = []
    for i, site in enumerate(sites):
        used = ok[i].sum() / n_g
        if used < cfg.min_weight:
            out.append(CellReading(site.key, "unseen", None, 0, False, 0.0))
            continue
        ok_i = ok[i]
        if covered[i] > 0:
            ok_i = ok[i] & past[i]
            if cfg.token_past_hand <= 0 or ok_i.sum() / n_g < cfg.token_past_hand:
                out.append(CellReading(site.key, "occluded", None, 0, False, float(covered[i])))
                continue
        share = (near[i] & ok_i[:, None]).sum(axis=0) / max(ok_i.sum(), 1)
        # a grey token also shows its printed dark centre (a shadow on the paper does not)
        dark_at = (ok_i & (lab[i, :, 0] < cfg.token_dark_l) & (darker[i] > 30.0)
                   & (np.hypot(lab[i, :, 1], lab[i, :, 2]) < 12.0))
        if cfg.token_dot_local > 0:
            dark_at |= ok_i & (_below_neighbours(lab[i, :, 0], 9) >= cfg.token_dot_local) & (darker[i] > 20.0) \
                & (np.hypot(lab[i, :, 1], lab[i, :, 2]) < 12.0)
        dot_at: list[npt.NDArray[np.bool_]] = []
        dark = _dot_probes(dark_at, 9, cfg.token_dot_max_probes, ~past[i] if covered[i] > 0 else None, dot_at)
        share = np.where(grey_kind & (dark < 1), 0.0, share)
        if cfg.token_dot_pale > 0 and dark < 1:
            # a pale kind (fossil) is as near the lit paper as a grey one is to its shade: its dark dot tells it too
            share = np.where(pale_kind, 0.0, share)
        if cfg.token_dot_owner > 0 and dark >= 1 and (share[dot_kind] >= cfg.token_min_share).any():
            # the dot amid another token found here is that token's own printed centre (each token has one)
            found_k = np.nonzero(share >= cfg.token_min_share)[0]
            amid = [j for j in found_k if not grey_kind[j]
                    and _dot_in_other(dot_at[0], near[i][:, j], ok_i, 9) >= cfg.token_dot_owner]
            if amid:  # (a kind told by its dot is not there unless it is the one the dot is amid)
                share = np.where(dot_kind & ~np.isin(np.arange(len(share)), amid), 0.0, share)
        low = cfg.token_min_share
        if covered[i] > 0:
            low = min(low, cfg.token_past_hand_probes / max(ok_i.sum(), 1))
        found = [(names[j], float(share[j])) for j in np.argsort(-share) if share[j] >= low]
        if cfg.token_own_probes > 0 and len(found) >= 2:
            # two tokens share a cell side by side (docs/rules/quirky.md section 1, "Tokens para compartir
            # espacios"), each on probes of its own: a further kind whose probes nearly all match a kind
            # found before it too (a seed's brown print within the flag's red hue) is that token's colour
            kept = [found[0]]
            for k, v in found[1:]:
                mine = near[i][:, names.index(k)] & ok_i
                if not any((mine & near[i][:, names.index(k0)]).sum() > cfg.token_own_probes * max(mine.sum(), 1)
                           for k0, _ in kept):
                    kept.append((k, v))
            found = kept
        if covered[i] > 0 and (not found or (len(found) == 1 and _partner_hidden(near[i][:, names.index(found[0][0])]
                                                                                 & ok_i, ok_i, 9))):
            # nothing seen past the hand, or one token off to one side of the cell with the other side
            # under the hand (two tokens share a cell side by side): a token may lie under it
            out.append(CellReading(site.key, "occluded", None, 0, False, float(covered[i])))
            continue
        if not found:
            busy = float((piece[i] * ok[i]).sum() / max(ok[i].sum(), 1))
            out.append(CellReading(site.key, "empty", None, 0, False, float(np.clip(1 - 2 * busy, 0, 1)) * used,
                                   seen=float(used)))
            continue
        kinds_here = sorted(k for k, _ in found[:2])
        conf = float(np.clip(min(v for _, v in found[:2]) / (2 * cfg.token_min_share), 0, 1))
        out.append(CellReading(site.key, "+".join(kinds_here), None, 0, False, conf, seen=float(used)))
    return out


def _partner_hidden(at: npt.NDArray[np.bool_], seen: npt.NDArray[np.bool_], side: int, span: float = 0.72,
                    off: float = 0.12, reach: float = 0.18) -> bool:
    """Could a token found on a cell's probes ``at`` (``side`` x ``side``, row-major, ``span`` of the
    cell across) have a partner hidden from view?  A single token lies in the middle of its cell, two
    share it side by side: yes if the token is seen off the middle (its probes' mean more than ``off``
    of the cell away, none of them more than ``off`` / 1.5 across the middle: a single token partly
    hidden still reaches across it) and most probes within ``reach`` of the place mirrored across the
    middle (where a partner would be) are not ``seen``."""
    if not at.any():
        return False
    u = ((np.arange(side * side) % side) / (side - 1) - 0.5) * span  # probe positions, in cells
    v = ((np.arange(side * side) // side) / (side - 1) - 0.5) * span
    cu, cv = float(u[at].mean()), float(v[at].mean())
    r = math.hypot(cu, cv)
    if r <= off or float(((u[at] * cu + v[at] * cv) / r).min()) < -off / 1.5:
        return False
    mirror = np.hypot(u + cu, v + cv) <= reach
    return bool(mirror.any() and seen[mirror].mean() < 0.5)


def _probes_on_mask(sc: _Scene, pts: F64, mask: npt.NDArray[np.bool_], scale: int) -> npt.NDArray[np.bool_]:
    """(N,): is each board point (N, 3) seen on ``mask`` (a picture shrunk ``scale`` times)?"""
    px = sc.pose.project(pts) / scale
    xi, yi = np.round(px[:, 0]).astype(np.int64), np.round(px[:, 1]).astype(np.int64)
    inside = (xi >= 0) & (xi < mask.shape[1]) & (yi >= 0) & (yi < mask.shape[0])
    out = np.zeros(len(pts), bool)
    out[inside] = mask[yi[inside], xi[inside]]
    return out


def _below_neighbours(light: F64, side: int) -> F64:
    """(side * side,): how much darker (L*) each probe of a ``side`` x ``side`` grid (row-major) is than the
    mean of its eight neighbours (edge probes: 0)."""
    g = light.reshape(side, side)
    out = np.zeros((side, side))
    nb = sum(g[1 + dy:side - 1 + dy, 1 + dx:side - 1 + dx] for dy in (-1, 0, 1) for dx in (-1, 0, 1)
             if dy or dx) / 8.0
    out[1:-1, 1:-1] = nb - g[1:-1, 1:-1]
    return np.asarray(out.ravel(), np.float64)


_DOT_TOUCH = cv2.getStructuringElement(cv2.MORPH_CROSS, (3, 3))


def _dot_probes(dark: npt.NDArray[np.bool_], side: int, max_probes: int,
                hidden: npt.NDArray[np.bool_] | None = None, where: list[npt.NDArray[np.bool_]] | None = None) -> int:
    """How many of a cell's ``side`` x ``side`` probes (row-major) are dark in a patch that could be
    a token's printed dark dot: at most ``max_probes`` probes, not touching the grid's edge
    (``max_probes`` 0: every dark probe counts) nor, when given, a ``hidden`` probe (one a hand
    covers: the dot is inside the token, so a patch at the hand's edge is the hand or its shadow)."""
    if max_probes <= 0 or not dark.any():
        if where is not None:
            where.append(dark.copy())
        return int(dark.sum())
    n, labels, stats, _ = cv2.connectedComponentsWithStats(dark.reshape(side, side).astype(np.uint8), connectivity=8)
    near_hidden = None
    if hidden is not None and hidden.any():
        grown = cv2.dilate(hidden.reshape(side, side).astype(np.uint8), _DOT_TOUCH) > 0
        near_hidden = set(np.unique(labels[grown]).tolist())
    total = 0
    mask = np.zeros((side, side), bool) if where is not None else None
    for k in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[k])
        if area <= max_probes and x > 0 and y > 0 and x + w < side and y + h < side \
                and (near_hidden is None or k not in near_hidden):
            total += area
            if mask is not None:
                mask |= labels == k
    if where is not None and mask is not None:
        where.append(mask.ravel())
    return total


def _dot_in_other(dot: npt.NDArray[np.bool_], other: npt.NDArray[np.bool_], seen: npt.NDArray[np.bool_],
                  side: int) -> float:
    """Share of the probes round a cell's dark dot (``dot``, ``side`` x ``side`` row-major; the ring one to two
    probes out) that show another token kind (``other``), of those seen: every printed token has a white disc with
    a dark centre, so a dark dot amid another token's colour is that token's centre, not a grey token's dot."""
    d = dot.reshape(side, side).astype(np.uint8)
    ring = (cv2.dilate(d, np.ones((5, 5), np.uint8)) > 0) & ~(cv2.dilate(d, np.ones((3, 3), np.uint8)) > 0)
    ring = ring.ravel() & seen
    if not ring.any():
        return 0.0
    # all round it (a grey token beside another in a cell has that one on one side only): the other kind is
    # seen on each of the four sides of the dot (the ring's probes grouped by their main direction from it)
    ys, xs = np.divmod(np.arange(side * side), side)
    cy, cx = ys[dot].mean(), xs[dot].mean()
    dx, dy = xs - cx, ys - cy
    sides = np.where(np.abs(dx) >= np.abs(dy), np.where(dx > 0, 0, 1), np.where(dy > 0, 2, 3))
    if sum(bool((other & ring & (sides == k)).any()) for k in range(4)) < 3:
        return 0.0
    return float((other & ring).sum() / ring.sum())


def _inside(probes: F64, rows: F64) -> npt.NDArray[np.bool_]:
    """(S, P): is each site's probe inside that site's solid ``rows`` (S, 6)?"""
    dx = probes[..., 0] - rows[:, None, 1]
    dy = probes[..., 1] - rows[:, None, 2]
    r = rows[:, None, 3]
    z = probes[..., 2]
    inz = (z >= rows[:, None, 4]) & (z <= rows[:, None, 5])
    box = (np.abs(dx) <= r) & (np.abs(dy) <= r)
    cyl = dx * dx + dy * dy <= r * r
    return np.asarray(inz & np.where(rows[:, None, 0] == 0, box, cyl), bool)


def _scores(pred: npt.NDArray[np.bool_], piece: F64, weight: F64, empty_bias: float = 0.0,
            allowed: npt.NDArray[np.bool_] | None = None) -> F64:
    """(K, S): share of each site's usable probes that hypothesis k explains (``empty_bias`` added
    to the empty hypothesis, the first: a piece must explain clearly more than nothing does).  Where
    ``allowed`` (K, S) is False the rules exclude that content there: its score is -1 (never chosen)."""
    agree = np.where(pred, piece[None], 1.0 - piece[None])  # (K, S, P)
    wsum = np.maximum(weight.sum(axis=1), 1e-9)
    out = np.asarray((agree * weight[None]).sum(axis=2) / wsum[None], np.float64)
    out[0] += empty_bias
    if allowed is not None:
        out = np.where(allowed, out, -1.0)
    return out


def _choose(pred: npt.NDArray[np.bool_], piece: F64, weight: F64, empty_bias: float = 0.0,
            allowed: npt.NDArray[np.bool_] | None = None) -> npt.NDArray[np.int64]:
    return np.asarray(np.argmax(_scores(pred, piece, weight, empty_bias, allowed), axis=0), np.int64)


#: a constant white balance (Gridopolis) is fitted on print samples at most e^1.5 (4.5 times) darker than
#: the brightest tenth of them (docs/boards_vision.md, "Accuracy round 4 (Gridopolis)")
GAIN_DARK_LOG = 1.5


@dataclass(frozen=True, eq=False)
class GainField:
    """The light on the board: per-channel gain (camera value / printed reflectance) varying
    smoothly over the board (a quadratic in board coordinates, in log space), so that a warm lamp on
    one side, vignetting or a darker corner are not mistaken for colour."""

    coef: F64  # (3, 6): log gain = coef @ [1, u, v, u^2, uv, v^2]
    extent: tuple[float, float, float, float]

    def _basis(self, xy: F64) -> F64:
        x0, y0, x1, y1 = self.extent
        u = np.clip((xy[:, 0] - (x0 + x1) / 2) / ((x1 - x0) / 2), -1.2, 1.2)
        v = np.clip((xy[:, 1] - (y0 + y1) / 2) / ((y1 - y0) / 2), -1.2, 1.2)
        return np.column_stack([np.ones_like(u), u, v, u * u, u * v, v * v])

    @cached_property
    def constant(self) -> bool:
        """The same gain everywhere (only the constant term; found once per field, session 19: asked ~35 times a
        frame)."""
        return not np.any(self.coef[:, 1:])

    @cached_property
    def _constant_gain(self) -> F64:
        """``exp`` of the constant terms (3,), read-only (computed once)."""
        g = np.exp(self.coef[:, 0])
        g.setflags(write=False)
        return np.asarray(g, np.float64)

    def at(self, xy: F64) -> F64:
        """Gain (N, 3) at board points (N, 2)."""
        if self.constant:
            return np.asarray(np.broadcast_to(self._constant_gain, (len(xy), 3)), np.float64)
        return np.asarray(np.exp(self._basis(xy) @ self.coef.T), np.float64)


@lru_cache(maxsize=16)
def _gain_samples(extent: tuple[float, float, float, float], app: _Appearance) -> tuple[F64, F64, F64]:
    """The light print's sample points of :func:`_gain_field` (the same for every picture of a
    board): board points (N, 2), their printed linear RGB (N, 3), the points at z = 0 (N, 3)."""
    x0, y0, x1, y1 = extent
    gx, gy = np.meshgrid(np.linspace(x0 + 2, x1 - 2, 40), np.linspace(y0 + 2, y1 - 2, 30))
    xy = np.column_stack([gx.ravel(), gy.ravel()])
    exp, _ = _expected(app, xy)
    light = exp.min(axis=1) > 0.3
    xy, exp = xy[light], exp[light]
    xyz = np.column_stack([xy, np.zeros(len(xy))])
    for a in (xy, exp, xyz):
        a.setflags(write=False)
    return xy, exp, xyz


def _shadow_light(img: U8, pose: BoardPose, app: _Appearance, gain: GainField, cfg: ClassifyBoardConfig
                  ) -> F64 | None:
    """Bandera: the light in the board's shadows relative to the lit print's (per channel, linear), or None.
    A lamp's shadow on the paper is lit only by the room's other light (a window's sky: bluer), so it has a
    colour of its own that no shading factor undoes.  Measured on the gain field's light print samples
    (:func:`_gain_samples`) darker than ``shadow_dark`` x the fit (and not black): shadows, and pieces on
    some.  Shadows agree on one colour, pieces do not: the samples within 0.1 (log, per channel, the
    lightness taken out) of their median colour, if ``shadow_min_samples`` or more (a shadow is large: a few
    pieces of one colour are not), give it, if tinted (``shadow_tint_min``)."""
    xy, exp, xyz = _gain_samples(pose.spec.extent_mm, app)
    px = pose.project(xyz)
    w, h = pose.image_size
    ok = (px[:, 0] > 2) & (px[:, 0] < w - 3) & (px[:, 1] > 2) & (px[:, 1] < h - 3)
    if ok.sum() < 20:
        return None
    r = np.log(np.maximum(_sample(img, px[ok]), 1e-4) / np.maximum(exp[ok], 1e-4)) - np.log(gain.at(xy[ok]))
    m = r.mean(axis=1)
    dark = (m < math.log(cfg.shadow_dark)) & (m > math.log(0.25))
    if dark.sum() < cfg.shadow_min_samples:
        return None
    c = r[dark] - m[dark, None]
    close = np.abs(c - _median_rows(c)).max(axis=1) < 0.1
    if close.sum() < cfg.shadow_min_samples:
        return None
    lg = _median_rows(r[dark][close])
    if float(np.abs(lg - lg.mean()).max()) < cfg.shadow_tint_min:
        return None
    return np.asarray(np.exp(lg), np.float64)


def _gain_field(img: U8, pose: BoardPose, app: _Appearance, constant: bool = False) -> GainField:
    """Fit :class:`GainField` to the board's light print (paper and pale zones) seen in the picture.
    Pieces and shadows on some of the sample points are outliers (darker, or another colour): the
    fit is repeated without the points far from it (robust, median absolute deviation)."""
    xy, exp, xyz = _gain_samples(pose.spec.extent_mm, app)
    px = pose.project(xyz)
    w, h = pose.image_size
    ok = (px[:, 0] > 2) & (px[:, 0] < w - 3) & (px[:, 1] > 2) & (px[:, 1] < h - 3)
    field = GainField(np.zeros((3, 6)), pose.spec.extent_mm)
    if ok.sum() < 20:
        return field
    xy, exp = xy[ok], exp[ok]
    r = np.log(np.maximum(_sample(img, px[ok]), 1e-4) / np.maximum(exp, 1e-4))  # (N, 3)
    if constant:  # most of the print hidden (a Gridopolis grid-set): one gain for all
        # (the lit print, not samples far darker than the brightest: the unlit or covered part of a
        # picture may be most of it)
        m = r.mean(axis=1)
        lit = m >= max(np.percentile(m, 40), np.percentile(m, 90) - GAIN_DARK_LOG)
        coef = np.zeros((3, 6))
        coef[:, 0] = np.median(r[lit], axis=0)
        return GainField(np.asarray(coef, np.float64), pose.spec.extent_mm)
    basis = field._basis(xy)
    # start from the largest group of samples that agree (the lit paper and print), whatever covers
    # the rest (pieces, shadows, a hand): the sample with the most neighbours in log-gain space
    sub = r[:: max(1, len(r) // 250)]
    dist = np.abs(sub[:, None, 0] - sub[None, :, 0])
    for ch in (1, 2):
        np.maximum(dist, np.abs(sub[:, None, ch] - sub[None, :, ch]), out=dist)
    near_count = (dist < 0.08).sum(axis=1)
    mode = sub[int(np.argmax(near_count))]
    keep = np.abs(r - mode).max(axis=1) < 0.2
    coef = np.zeros((3, 6))
    for _ in range(4):
        if keep.sum() < 12:
            break
        bk = basis[keep]  # least squares by the normal equations (6 unknowns: much faster than an SVD)
        try:
            coef = np.linalg.solve(bk.T @ bk, bk.T @ r[keep]).T
        except np.linalg.LinAlgError:  # the samples kept do not span the quadratic
            coef = np.linalg.lstsq(bk, r[keep], rcond=None)[0].T
        res = r - basis @ coef.T
        dev = np.abs(res - _median_rows(res[keep])).max(axis=1)
        mad = float(_median_rows(dev[keep])) + 1e-3
        keep = dev < 3.0 * mad
    return GainField(np.asarray(coef, np.float64), pose.spec.extent_mm)
