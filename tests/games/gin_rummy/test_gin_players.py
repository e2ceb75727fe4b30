"""Gin Rummy's scripted players: legal moves only, greedy beats random, each rule of
``simple`` on a hand built for it, and ``search`` deciding from its seat's information only."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from carousel_env.core.cards import parse_hand
from carousel_env.core.errors import CarouselError
from carousel_env.games.gin_rummy import engine as ge
from carousel_env.games.gin_rummy import melds as gm
from carousel_env.games.gin_rummy.players import get_player, search_player, simple_move
from carousel_env.games.gin_rummy.rules import GinRules

OPENSPIEL = GinRules.from_options("openspiel")
BOOK = GinRules.from_options("book", first_dealer=1)


def _hand(seed: int, players, rules: GinRules = OPENSPIEL) -> ge.GinState:
    state = ge.new_game(rules, seed)
    while not state.over:
        state = ge.apply(state, players[state.current](state))  # apply refuses an illegal move
    return state


def _card(text: str) -> int:
    return parse_hand(text)[0]


def _deal(p0: str, p1: str, upcard: str, stock: str = "") -> tuple[int, ...]:
    """A deck that deals these hands (player 0 acts first) and upcard, then these stock cards."""
    top = tuple(_card(card) for card in f"{p0} {p1} {upcard} {stock}".split())
    return top + tuple(c for c in range(52) if c not in top)


def _discarding(p0: str, drawn: str, rules: GinRules = OPENSPIEL) -> ge.GinState:
    """Player 0 to discard from ``p0`` plus ``drawn``, drawn from the stock after both passed."""
    state = ge.new_game(rules, 0, deck=_deal(p0, "2C 3D 4H 6C 8C 8H 10C JC QH KC", "AD", drawn))
    state = ge.apply(ge.apply(state, ge.PASS), ge.PASS)
    return ge.apply(state, ge.DRAW_STOCK)


def test_greedy_beats_random_from_both_seats():
    net = 0
    for seed in range(60):
        greedy_seat = seed % 2
        players = [get_player("random", seed), get_player("random", seed)]
        players[greedy_seat] = get_player("greedy")
        points = _hand(seed, players).last_hand.points
        net += points[greedy_seat] - points[1 - greedy_seat]
    assert net > 60 * 20


def test_greedy_knocks_as_soon_as_it_may():
    for seed in range(20):
        state = ge.new_game(OPENSPIEL, seed)
        greedy = get_player("greedy")
        while not state.over:
            move = greedy(state)
            if ge.MoveKind.KNOCK in ge.legal_kinds(state):
                assert move.kind is ge.MoveKind.KNOCK
            state = ge.apply(state, move)


def test_unknown_player_is_named():
    with pytest.raises(CarouselError, match="unknown Gin Rummy player 'smart' \\(players: random, greedy, simple"):
        get_player("smart")
    with pytest.raises(CarouselError, match="unknown Gin Rummy player 'simple@3'"):
        get_player("simple@3")
    for bad in ("search@0", "search@x", "search@"):
        with pytest.raises(CarouselError, match="search@N needs N, the deals a decision"):
            get_player(bad)


# ---------------------------------------------------------------- simple, rule by rule


def test_simple_takes_an_upcard_that_completes_a_meld():
    state = ge.new_game(
        OPENSPIEL, 0, deck=_deal("5S 6S 9C 9D KH QC JD 2H 3C 8D", "AC 2C 4H 6H 7C 8H 10S 10C JH QS", "7S")
    )
    assert state.phase is ge.Phase.FIRST_UPCARD
    assert simple_move(state) == ge.TAKE_UPCARD  # 5S 6S 7S
    state = ge.new_game(
        OPENSPIEL, 0, deck=_deal("5S 6S 9C 9D KH QC JD 2H 3C 8D", "AC 2C 4H 6H 7C 8H 10S 10C JH QS", "9H")
    )
    assert simple_move(state) == ge.TAKE_UPCARD  # 9C 9D 9H


def test_simple_declines_an_upcard_that_melds_nothing():
    deck = _deal("5S 6S 9C 9D KH QC JD 2H 3C 8D", "AC 2C 4H 6H 7C 8H 10S 10C JH QS", "4D")
    state = ge.new_game(OPENSPIEL, 0, deck=deck)
    assert simple_move(state) == ge.PASS  # on the first upcard
    state = _discarding("5S 6S 9C 9D KH QC JD 2H 3C 8D", "AS")
    state = ge.apply(state, ge.Move(ge.MoveKind.DISCARD, _card("KH")))  # player 1 to draw over KH
    assert state.current == 1 and simple_move(state) == ge.DRAW_STOCK


def test_simple_takes_an_upcard_that_allows_a_knock_though_it_melds_nothing():
    # 2S 3S 4S, 7C 7D 7H, 9D 10D JD: deadwood AC and KS; the upcard AH melds nothing, but
    # taking it and discarding KS leaves AC AH: 2 points.
    hand = "2S 3S 4S 7C 7D 7H 9D 10D JD KS"
    state = ge.new_game(OPENSPIEL, 0, deck=_deal(hand, "AC 2C 4H 6H 8C 8H 10S 10C JH QS", "AH"))
    assert simple_move(state) == ge.TAKE_UPCARD
    loose = "2S 3S 4S 7C 7D 7H 9D 10D KS QC"  # the same upcard, 30 points left: no knock
    state = ge.new_game(OPENSPIEL, 0, deck=_deal(loose, "AC 2C 4H 6H 8C 8H 10S 10C JH QS", "AH"))
    assert simple_move(state) == ge.PASS


def test_simple_discards_its_highest_deadwood_card():
    # Melds 5S 6S 7S and 9C 9D 9H; deadwood KH QC JD 2H 3C: the king goes, not a melded card.
    state = _discarding("5S 6S 7S 9C 9D 9H KH QC JD 2H", "3C")
    assert simple_move(state) == ge.Move(ge.MoveKind.DISCARD, _card("KH"))
    # Two kings loose: OpenSpiel's suit order breaks the tie (hearts before spades).
    state = _discarding("5S 6S 7S 9C 9D 9H KH KS JD 2H", "3C")
    assert simple_move(state) == ge.Move(ge.MoveKind.DISCARD, _card("KH"))


def test_simple_never_discards_the_upcard_just_taken_where_the_rules_forbid_it():
    hand = "5S 6S 7S 9C 9D 9H 2H 3C 4D 5C"
    for rules, expected in ((BOOK, "5C"), (OPENSPIEL, "KH")):
        state = ge.new_game(rules, 0, deck=_deal(hand, "AC 2C 4H 6H 8C 8H 10S 10C JH QS", "KH"))
        state = ge.apply(state, ge.TAKE_UPCARD)  # taken although simple would not: the rule is the discard's
        assert simple_move(state) == ge.Move(ge.MoveKind.DISCARD, _card(expected))


def test_simple_knocks_as_soon_as_it_may_with_the_least_deadwood():
    state = _discarding("2S 3S 4S 7C 7D 7H 9D 10D JD KS", "AC")
    move = simple_move(state)
    assert move.kind is ge.MoveKind.KNOCK
    assert move.arrangement.deadwood == 1 and move.arrangement.discard == _card("KS")
    assert move.arrangement.deadwood == min(a.deadwood for a in ge.knock_options(state))
    for seed in range(20):  # and in play, at every chance
        state = ge.new_game(OPENSPIEL, seed)
        while not state.over:
            move = simple_move(state)
            assert (move.kind is ge.MoveKind.KNOCK) == (ge.MoveKind.KNOCK in ge.legal_kinds(state))
            state = ge.apply(state, move)


def test_simple_beats_random_under_both_presets():
    for rules in (OPENSPIEL, BOOK):
        net = 0
        for seed in range(20):
            seat = seed % 2
            players = [get_player("random", seed), get_player("random", seed)]
            players[seat] = get_player("simple")
            points = _hand(seed, players, rules).last_hand.points
            net += points[seat] - points[1 - seat]
        assert net > 20 * 20


# ---------------------------------------------------------------- search


def _hidden_reshuffled(state: ge.GinState, rng: random.Random) -> ge.GinState:
    """``state`` with the cards its player to act cannot see dealt differently: the
    opponent's cards not taken from the pile and the stock, mixed and dealt again."""
    seat, opponent = state.current, 1 - state.current
    loose = state.hands[opponent] & ~state.known[opponent]
    cards = list(gm.cards_of(loose)) + list(state.stock[state.stock_top :])
    rng.shuffle(cards)
    count = bin(loose).count("1")
    hands = [0, 0]
    hands[seat] = state.hands[seat]
    hands[opponent] = state.known[opponent] | gm.mask_of(cards[:count])
    stock = state.stock[: state.stock_top] + tuple(cards[count:])
    return replace(state, hands=(hands[0], hands[1]), stock=stock)


def test_search_decides_from_its_seats_information_only():
    rng = random.Random(5)
    compared = changed = 0
    for seed in range(4):
        state = ge.new_game(OPENSPIEL, seed)
        while not state.over and compared < 4 * (seed + 1):
            choice = len(ge.legal_discards(state)) > 1 or len(ge.legal_kinds(state)) > 1
            if choice and state.hand_index == 0:
                other = _hidden_reshuffled(state, rng)
                changed += other.hands != state.hands
                assert get_player("search@3", seed)(state) == get_player("search@3", seed)(other)
                compared += 1
            state = ge.apply(state, simple_move(state))
    assert compared >= 8 and changed >= compared - 1


def test_search_plays_legal_moves_to_the_end_of_a_hand_under_both_presets():
    for rules in (OPENSPIEL, BOOK):
        state = _hand(3, [get_player("search@2", 3), get_player("simple")], rules)
        assert state.over


def test_search_deals_its_worlds_with_the_deal_it_is_given():
    dealt = []

    def true_hands(state, rng):  # a yardstick's deal: the real hands, the stock re-dealt
        dealt.append(state.current)
        stock = list(state.stock[state.stock_top :])
        rng.shuffle(stock)
        return replace(state, stock=tuple(stock), stock_top=0)

    searcher = search_player(seed=1, samples=3, deal=true_hands)
    state = _hand(7, [searcher, get_player("simple")], OPENSPIEL)
    assert state.over and dealt and len(dealt) % 3 == 0 and set(dealt) == {0}


@pytest.mark.parametrize("margin", [-1, True, "2"])
def test_search_refuses_a_bad_margin(margin):
    with pytest.raises(CarouselError, match="margin must be a number >= 0"):
        search_player(margin=margin)
