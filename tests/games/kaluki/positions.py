"""Hand-made Kaluki positions for the engine's tests: seats' hands and melds as text."""

from __future__ import annotations

from collections import Counter

from carousel_env.core.cards import make_deck, parse_card, parse_hand, parse_meld
from carousel_env.games.kaluki.melds import meld_from_units
from carousel_env.games.kaluki.rules import PRESETS, KalukiRules
from carousel_env.games.kaluki.state import KalukiState, Move, MoveKind, Phase, discard, lay_off

BOOK = PRESETS["book"]


def cards_in_order(text: str) -> tuple:
    """Cards as written (a pile or a stock: its order matters, the last is the top)."""
    return tuple(parse_card(t) for t in text.split())


def position(
    hands,
    *,
    rules: KalukiRules = BOOK,
    current: int = 0,
    phase: Phase = Phase.PLAY,
    melds=None,
    opened=None,
    stock: str = "2C 3C 4C",
    discards: str = "9D",
    taken: str = "",
    totals=None,
    in_play=None,
    laid=None,
    restocks_used: int = 0,
    pile_takes: int = 0,
    dealer: int | None = None,
    known=None,
) -> KalukiState:
    n = len(hands)
    table = tuple(tuple(meld_from_units(parse_meld(t), rules) for t in seat) for seat in (melds or [[]] * n))
    return KalukiState(
        rules=rules,
        num_players=n,
        seed=0,
        hand_number=0,
        dealer=(current - 1) % n if dealer is None else dealer,
        current=current,
        phase=phase,
        hands=tuple(parse_hand(h) for h in hands),
        melds=table,
        stock=cards_in_order(stock),
        discards=cards_in_order(discards),
        opened=tuple(opened) if opened is not None else tuple(bool(m) for m in table),
        in_play=tuple(in_play) if in_play is not None else (True,) * n,
        totals=tuple(totals) if totals is not None else (0,) * n,
        restocks_used=restocks_used,
        pile_takes=pile_takes,
        taken=parse_card(taken) if taken else -1,
        laid=tuple(laid) if laid is not None else tuple(bool(m) for m in table),
        known=tuple(parse_hand(h) for h in known) if known is not None else (),
    )


def melds(*texts: str, rules: KalukiRules = BOOK) -> tuple:
    return tuple(meld_from_units(parse_meld(t), rules) for t in texts)


def throw(text: str) -> Move:
    return discard(parse_card(text))


def lay(card: str, seat: int, meld: int, declare: str = "") -> Move:
    return lay_off(parse_card(card), seat, meld, parse_card(declare) if declare else -1)


def all_cards(state: KalukiState) -> Counter:
    """Every card of the game where it is: hands, table (a joker as a joker), stock and pile."""
    cards = Counter(state.stock) + Counter(state.discards)
    for seat in range(state.num_players):
        cards += Counter(state.hands[seat])
        for m in state.melds[seat]:
            cards += Counter(m.cards())
    return cards


def pack(rules: KalukiRules) -> Counter:
    return Counter(make_deck(rules.decks, rules.jokers))


PLAYS = (MoveKind.OPEN, MoveKind.MELD, MoveKind.LAY_OFF, MoveKind.EXCHANGE)
