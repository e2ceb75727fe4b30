"""Our Gin Rummy agents inside OpenSpiel's ``gin_rummy``, against OpenSpiel's own bots.

.. code-block:: python

    from carousel_env.integrations.openspiel_gin import play_openspiel

    result = play_openspiel("simple", "openspiel:simple", deals=100, seed=0)
    print(result.mean_return, result.mean_return_ci, result.win_rate, result.win_rate_ci)

The hands are OpenSpiel's: its state decides what is legal and pays the returns. Our seat
acts through our own engine, kept in lock-step under preset ``openspiel``: every card our
engine deals or draws is OpenSpiel's chance outcome, each of our moves is played in both,
and each of the bot's moves is read back into our engine. Where the two engines play the
same hand differently, OpenSpiel decides:

* after a knock the knocker's opponent lays off and melds in OpenSpiel by its own choice.
  When the bot knocks, our seat answers as our engine does (least deadwood, lay-offs
  included; ``lays_off=False`` answers as OpenSpiel's simple bot does, melding only); when
  we knock, OpenSpiel's simple bot never lays off. The returns are OpenSpiel's
  (``HandRecord.engine_return`` keeps our engine's score of the same hand);
* OpenSpiel's eleven-card deadwood can miss a legal knock our engine offers (see
  ``DIFFERENCES`` in ``tests/support/openspiel_gin.py``): such a knock is refused. An
  engine player's refused knock is played as the discard of its arrangement (pass at the
  wall), counted in ``refused_knocks``; an observation policy never sees it in its mask.

Agents: a Gin player's name (:mod:`carousel_env.games.gin_rummy.players`, built afresh for
each hand with the hand's seed), an engine player ``GinState -> Move`` (the engine state of
the hand, of which players read only what their seat may know), or a callable
``(observation, action_mask) -> action`` on our Gin env's observation (a decision with a
single legal action is taken for it, as the env does). Opponents: ``openspiel:simple``
(``pyspiel.make_simple_gin_rummy_bot``) and ``openspiel:ismcts@N`` (OpenSpiel's
information-set MCTS, ``N`` simulations with random rollouts, :data:`ISMCTS_UCT_C`).

``watch`` sees each of the bot's moves as our engine's move, with our engine's state before
it (``benchmarks/bench_gin_reconcile.py`` compares them with our own ``simple``'s).

Each deal is played twice with the seats swapped (mirrored: the same cards to each seat
once), and the agent's seat alternates from one hand to the next. Reported: every hand's
return (the agent's points minus the bot's, OpenSpiel's ``returns()``), the mean return
with a 95% normal interval over hands and over deals (each deal's mean of its two hands),
and the win rate among decided hands (nonzero return) with Wilson's interval over hands
and a normal interval over the deals' win shares (deals with no decided hand left out); the
points a hand of each side, and the agent's knock, gin and undercut rates (gin and knock
rates of all hands, undercuts of its knocks), each with its interval: the report
``carousel eval`` gives in our own env, in OpenSpiel's unit, the single hand.
"""

from __future__ import annotations

import inspect
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import pyspiel

from carousel_env.core.cards import NUM_CARDS, make_card, rank_of, suit_of
from carousel_env.core.errors import CarouselError
from carousel_env.core.stats import mean_interval, wilson_interval
from carousel_env.games.gin_rummy import engine as ge
from carousel_env.games.gin_rummy import melds as gm
from carousel_env.games.gin_rummy.env import GinAction, decision, engine_move, own_deadwood
from carousel_env.games.gin_rummy.observation import encode, layout
from carousel_env.games.gin_rummy.players import GinPlayer, get_player
from carousel_env.games.gin_rummy.policies import ScriptedPolicy
from carousel_env.games.gin_rummy.rules import HAND_SIZE, PRESETS
from carousel_env.integrations import OPENSPIEL_PREFIX

RULES = PRESETS["openspiel"]
GIN = pyspiel.gin_rummy
UTILS = GIN.GinRummyUtils(13, 4, HAND_SIZE)
OS_SUITS = (3, 0, 1, 2)  # OpenSpiel's suits s c d h, as ours (C D H S = 0 1 2 3)
MAX_BASE_RUN = 5  # OpenSpiel's melds are runs of 3 to 5
DEALT = 2 * HAND_SIZE + 1  # the chance outcomes before the first decision: both hands and the upcard
ISMCTS_UCT_C = 2.0  # the exploration constant of OpenSpiel's ISMCTS examples
K_KNOCKS = 8  # knock slots of the env an observation policy is given


class OpenSpielGinError(CarouselError):
    """A bad agent or opponent for the OpenSpiel runner, or a hand the engines disagree on."""


# ---------------------------------------------------------------- the mapping


def to_os(card: int) -> int:
    """OpenSpiel's index of our card (suit-major in its suit order, ace low)."""
    return OS_SUITS.index(suit_of(card)) * 13 + rank_of(card) - 1


def from_os(card: int) -> int:
    return make_card(card % 13 + 1, OS_SUITS[card // 13])


def os_melds(melds) -> list[int]:
    """OpenSpiel's meld actions for our melds (a run longer than 5 laid as runs of 3 to 5)."""
    actions = []
    for meld in melds:
        cards = list(meld.cards)
        pieces = [cards]
        if meld.is_run and len(cards) > MAX_BASE_RUN:
            cut = MAX_BASE_RUN if len(cards) - MAX_BASE_RUN >= 3 else len(cards) - 3
            pieces = [cards[:cut], cards[cut:]]
        for piece in pieces:
            actions.append(GIN.MELD_ACTION_BASE + UTILS.meld_to_int(sorted(to_os(c) for c in piece)))
    return actions


def our_meld(action: int) -> gm.Meld:
    """Our meld for OpenSpiel's meld action."""
    return gm.Meld(tuple(sorted(from_os(c) for c in UTILS.int_to_meld[action - GIN.MELD_ACTION_BASE])))


def apply_os(os_state, action: int, what: str) -> None:
    """Play ``action`` in OpenSpiel, or say which move it refused."""
    if action not in os_state.legal_actions():
        raise OpenSpielGinError(
            f"the engines disagree: OpenSpiel refuses {what} ({os_state.action_to_string(action)})\n{os_state}"
        )
    os_state.apply_action(action)


def os_action(move: ge.Move) -> int:
    """OpenSpiel's action for a draw, pass or discard of ours."""
    if move.kind is ge.MoveKind.DISCARD:
        return to_os(move.card)
    return {
        ge.MoveKind.TAKE_UPCARD: GIN.DRAW_UPCARD_ACTION,
        ge.MoveKind.DRAW_STOCK: GIN.DRAW_STOCK_ACTION,
        ge.MoveKind.PASS: GIN.PASS_ACTION,
    }[move.kind]


def knock_in_openspiel(os_state, arrangement: gm.Arrangement) -> None:
    """The knocker's side of a knock: knock, the discard, the melds one by one, pass."""
    apply_os(os_state, GIN.KNOCK_ACTION, "the knock")
    apply_os(os_state, to_os(arrangement.discard), "the knock's discard")
    for action in os_melds(arrangement.melds):
        apply_os(os_state, action, "a knocker's meld")
    apply_os(os_state, GIN.PASS_ACTION, "the knocker's end of melding")


def answer_in_openspiel(os_state, arrangement: gm.Arrangement, answer: gm.Layoffs) -> None:
    """The opponent's side of a knock: lay-offs (none after gin), pass, melds, pass."""
    if arrangement.deadwood > 0:  # OpenSpiel skips the lay-offs after gin
        for card, _ in answer.laid_off:
            apply_os(os_state, to_os(card), "a lay-off")
        apply_os(os_state, GIN.PASS_ACTION, "the end of lay-offs")
    for action in os_melds(answer.melds):
        apply_os(os_state, action, "an opponent's meld")
    apply_os(os_state, GIN.PASS_ACTION, "the opponent's end of melding")


def deal_openspiel(deck: Sequence[int]):
    """OpenSpiel's ``gin_rummy`` after dealing ``deck`` (top first, our cards) as ours does."""
    os_state = pyspiel.load_game("gin_rummy").new_initial_state()
    for card in deck[:DEALT]:
        os_state.apply_action(to_os(card))
    return os_state


# ---------------------------------------------------------------- agents and opponents


class Opponent(NamedTuple):
    """An OpenSpiel bot: ``kind`` (``simple`` or ``ismcts``) and ISMCTS's simulations."""

    kind: str
    simulations: int = 0

    @property
    def name(self) -> str:
        return f"{OPENSPIEL_PREFIX}{self.kind}" + (f"@{self.simulations}" if self.kind == "ismcts" else "")


def parse_opponent(spec: str) -> Opponent:
    """``openspiel:simple`` or ``openspiel:ismcts@N`` (N >= 1) as an :class:`Opponent`."""
    known = f"{OPENSPIEL_PREFIX}simple, {OPENSPIEL_PREFIX}ismcts@N"
    if not isinstance(spec, str) or not spec.startswith(OPENSPIEL_PREFIX):
        raise OpenSpielGinError(f"unknown Gin Rummy opponent {spec!r}: the opponents are OpenSpiel's bots ({known})")
    kind, at, budget = spec[len(OPENSPIEL_PREFIX) :].partition("@")
    if kind == "simple" and not at:
        return Opponent("simple")
    if kind == "ismcts":
        if not budget.isdigit() or int(budget) < 1:
            raise OpenSpielGinError(
                f"opponent {spec!r}: openspiel:ismcts@N needs N, its simulations a move, a whole number of at least 1"
            )
        return Opponent("ismcts", int(budget))
    raise OpenSpielGinError(f"unknown Gin Rummy opponent {spec!r} (OpenSpiel's bots: {known})")


def make_bot(opponent: Opponent, game, player: int, seed: int):
    """A fresh OpenSpiel bot for ``player`` of ``game``."""
    if opponent.kind == "simple":
        return pyspiel.make_simple_gin_rummy_bot(game.get_parameters(), player)
    from open_spiel.python.algorithms import ismcts, mcts

    rng = np.random.RandomState(seed)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    return ismcts.ISMCTSBot(game, evaluator, ISMCTS_UCT_C, max_simulations=opponent.simulations, random_state=rng)


ObservationPolicy = Callable[[np.ndarray, np.ndarray], int]
GinAgent = str | ScriptedPolicy | GinPlayer | ObservationPolicy


class _Seat(NamedTuple):
    """An agent resolved for one hand: an engine player or an observation policy."""

    player: GinPlayer | None
    policy: ObservationPolicy | None


def agent_name(agent: GinAgent) -> str:
    if isinstance(agent, str):
        return agent
    if isinstance(agent, ScriptedPolicy):
        return agent.name
    return getattr(agent, "__name__", type(agent).__name__)


def check_agent(agent: GinAgent) -> None:
    """Refuse an agent the runner cannot seat, naming it (before any hand is played)."""
    _seat(agent, 0)


def _seat(agent: GinAgent, seed: int) -> _Seat:
    if isinstance(agent, str):
        return _Seat(get_player(agent, seed), None)
    if isinstance(agent, ScriptedPolicy):
        return _Seat(agent.player, None)
    if callable(agent):
        try:
            positional = [
                p
                for p in inspect.signature(agent).parameters.values()
                if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
            ]
        except (TypeError, ValueError):
            positional = [None, None]  # a builtin without a signature: taken as a policy
        if len(positional) == 1:
            return _Seat(agent, None)
        if len(positional) == 2:
            return _Seat(None, agent)
    raise OpenSpielGinError(
        f"a Gin agent is a player's name, an engine player (state) -> move or a policy"
        f" (observation, action_mask) -> action, got {agent!r}"
    )


# ---------------------------------------------------------------- one hand


class HandRecord(NamedTuple):
    """One hand played inside OpenSpiel: the deal (its index), the agent's seat (0 acts
    first), the agent's return in OpenSpiel and in our engine's scoring, how it ended, and
    who knocked (the seat, -1 for a dead hand)."""

    deal: int
    seat: int
    returns: float
    engine_return: int
    end: str
    refused_knocks: int
    seconds: float
    knocker: int = -1

    @property
    def agent_knocked(self) -> bool:
        return self.knocker == self.seat

    @property
    def undercut(self) -> bool:
        """The knocker lost the hand in OpenSpiel's scoring (a tie scores 0 there)."""
        knocker_return = self.returns if self.agent_knocked else -self.returns
        return self.knocker >= 0 and knocker_return < 0


def deck_of(deal_seed: int) -> tuple[int, ...]:
    """The shuffled deck (our cards, top first) of a deal."""
    deck = list(range(NUM_CARDS))
    random.Random(deal_seed).shuffle(deck)
    return tuple(deck)


def _os_legal_moves(os_state) -> set[int]:
    return set(os_state.legal_actions())


def _agent_move(seat: _Seat, ours: ge.GinState, os_legal: set[int]) -> tuple[ge.Move, bool]:
    """The agent's move, legal in OpenSpiel too, and whether a knock of it was refused."""
    knock_allowed = GIN.KNOCK_ACTION in os_legal
    if seat.player is not None:
        move = seat.player(ours)
        if move.kind is not ge.MoveKind.KNOCK or knock_allowed:
            return move, False
        if ours.phase is ge.Phase.WALL:
            return ge.PASS, True
        return ge.Move(ge.MoveKind.DISCARD, move.arrangement.discard), True
    mask, knocks = decision(ours, K_KNOCKS)
    if not knock_allowed:
        mask[GinAction.FIRST_KNOCK :] = 0
    legal = np.flatnonzero(mask)
    if len(legal) == 1:
        return engine_move(int(legal[0]), knocks), False
    eleven = ours.phase is ge.Phase.DISCARD
    vector = encode(ours, ours.current, knocks, own_deadwood(ours.hands[ours.current], eleven), layout(K_KNOCKS))
    action = int(seat.policy(vector, mask))
    if not 0 <= action < len(mask) or not mask[action]:
        raise OpenSpielGinError(f"the agent chose action {action}, which its action mask does not allow")
    return engine_move(action, knocks), False


def _bot_knock(bot, os_state, ours: ge.GinState, bot_seat: int) -> gm.Arrangement:
    """The bot's knock, played in OpenSpiel to its end of melding, as our arrangement."""
    discard, melds = -1, []
    while not os_state.is_terminal() and os_state.current_player() == bot_seat:
        action = int(bot.step(os_state))
        if action < NUM_CARDS and discard < 0:
            discard = from_os(action)
        elif action >= GIN.MELD_ACTION_BASE:
            melds.append(our_meld(action))
        os_state.apply_action(action)
    wanted = (discard, gm.merge_runs(melds))
    for arrangement in ge.knock_options(ours):
        if (arrangement.discard, arrangement.melds) == wanted:
            return arrangement
    raise OpenSpielGinError(f"the engines disagree: OpenSpiel's knock (discard {discard}, {wanted[1]}) is not ours")


BotWatch = Callable[[ge.GinState, ge.Move], None]


def play_hand(
    agent: GinAgent,
    opponent: Opponent,
    deal: int,
    deal_seed: int,
    seat: int,
    *,
    lays_off: bool = True,
    watch: BotWatch | None = None,
) -> HandRecord:
    """One hand of deal ``deal_seed`` in OpenSpiel, the agent in ``seat``, the bot in the other.
    ``lays_off``: whether the agent lays off when the bot knocks; ``watch``: called with our
    engine's state and the bot's move, before each of its moves (module docstring)."""
    started = time.perf_counter()
    deck = deck_of(deal_seed)
    ours = ge.new_game(RULES, deal_seed, deck=deck)
    os_state = deal_openspiel(deck)
    bot_seat = 1 - seat
    bot = make_bot(opponent, os_state.get_game(), bot_seat, deal_seed * 2 + bot_seat)
    resolved = _seat(agent, deal_seed * 2 + seat)
    refused = 0
    while not ours.over:
        if os_state.is_terminal() or os_state.current_player() != ours.current:
            raise OpenSpielGinError(f"the engines disagree on the player to act:\n{ours}\n{os_state}")
        if ours.current == seat:
            move, was_refused = _agent_move(resolved, ours, _os_legal_moves(os_state))
            refused += was_refused
            if move.kind is ge.MoveKind.KNOCK:
                after = ge.apply(ours, move)
                knock_in_openspiel(os_state, move.arrangement)
                while not os_state.is_terminal():  # the bot lays off and melds as it will
                    os_state.apply_action(int(bot.step(os_state)))
                ours = after
                break
            apply_os(os_state, os_action(move), str(move))
        else:
            action = int(bot.step(os_state))
            if action == GIN.KNOCK_ACTION:
                os_state.apply_action(action)
                arrangement = _bot_knock(bot, os_state, ours, bot_seat)
                knock = ge.Move(ge.MoveKind.KNOCK, arrangement=arrangement)
                if watch is not None:
                    watch(ours, knock)
                held = ours.hands[seat]
                ours = ge.apply(ours, knock)
                # Melding only, as OpenSpiel's simple bot answers (best_layoffs lays nothing on gin).
                answer = ours.last_hand.layoffs if lays_off else gm.best_layoffs(arrangement.melds, held, gin=True)
                answer_in_openspiel(os_state, arrangement, answer)
                break
            move = _bot_move(action)
            if watch is not None:
                watch(ours, move)
            os_state.apply_action(action)
        drawn = ours.stock[ours.stock_top] if move.kind is ge.MoveKind.DRAW_STOCK else None
        ours = ge.apply(ours, move)
        if drawn is not None and os_state.is_chance_node():
            os_state.apply_action(to_os(drawn))  # the chance outcome: the card our stock gave
    if not os_state.is_terminal():
        raise OpenSpielGinError(f"the engines disagree: our hand ended ({ours.last_hand.end.value}), OpenSpiel's not")
    points = ours.last_hand.points
    return HandRecord(
        deal=deal,
        seat=seat,
        returns=float(os_state.returns()[seat]),
        engine_return=points[seat] - points[bot_seat],
        end=ours.last_hand.end.value,
        refused_knocks=refused,
        seconds=time.perf_counter() - started,
        knocker=ours.last_hand.knocker,
    )


def _bot_move(action: int) -> ge.Move:
    if action < NUM_CARDS:
        return ge.Move(ge.MoveKind.DISCARD, from_os(action))
    moves = {GIN.DRAW_UPCARD_ACTION: ge.TAKE_UPCARD, GIN.DRAW_STOCK_ACTION: ge.DRAW_STOCK, GIN.PASS_ACTION: ge.PASS}
    if action not in moves:
        raise OpenSpielGinError(f"the bot played action {action}, which our engine has no move for here")
    return moves[action]


# ---------------------------------------------------------------- a match


@dataclass(frozen=True)
class OpenSpielMatch:
    """An agent's hands against one OpenSpiel bot, with the summary figures."""

    agent: str
    opponent: str
    hands: tuple[HandRecord, ...]
    deals: int
    mean_return: float
    mean_return_ci: tuple[float, float]  # normal, over hands
    mean_return_ci_deals: tuple[float, float]  # normal, over the deals' means
    decided: int  # hands with a nonzero return
    wins: int
    win_rate: float  # among decided hands
    win_rate_ci: tuple[float, float]  # Wilson, over decided hands
    win_rate_ci_deals: tuple[float, float]  # normal, over the deals' win shares
    refused_knocks: int
    seconds_per_hand: float
    # The share of every hand won, a dead hand half: the win rate our evaluation reports.
    win_share: float = 0.0
    win_share_ci: tuple[float, float] = (0.0, 0.0)  # Wilson, over hands
    # Points a hand for each side (a hand's return goes to the side it favours), normal
    # intervals over hands; the agent's knocks, gins and undercuts (of its knocks), Wilson's.
    points_per_hand: float = 0.0
    points_per_hand_ci: tuple[float, float] = (0.0, 0.0)
    opponent_points_per_hand: float = 0.0
    opponent_points_per_hand_ci: tuple[float, float] = (0.0, 0.0)
    knock_rate: float = 0.0
    knock_rate_ci: tuple[float, float] = (0.0, 1.0)
    gin_rate: float = 0.0
    gin_rate_ci: tuple[float, float] = (0.0, 1.0)
    undercut_rate: float = 0.0
    undercut_rate_ci: tuple[float, float] = (0.0, 1.0)

    def as_json(self) -> dict[str, Any]:
        out = {name: getattr(self, name) for name in self.__dataclass_fields__ if name != "hands"}
        out["hands"] = [record._asdict() for record in self.hands]
        return out


def summarise(agent: str, opponent: str, hands: Sequence[HandRecord]) -> OpenSpielMatch:
    """The figures of a match (see the module docstring)."""
    returns = [h.returns for h in hands]
    by_deal: dict[int, list[HandRecord]] = {}
    for record in hands:
        by_deal.setdefault(record.deal, []).append(record)
    deal_means = [sum(h.returns for h in rs) / len(rs) for rs in by_deal.values()]
    decided = [h for h in hands if h.returns != 0]
    wins = sum(h.returns > 0 for h in decided)
    deal_shares = []
    for records in by_deal.values():
        settled = [h for h in records if h.returns != 0]
        if settled:
            deal_shares.append(sum(h.returns > 0 for h in settled) / len(settled))
    n = len(hands)
    own = [max(r, 0.0) for r in returns]
    theirs = [max(-r, 0.0) for r in returns]
    knocks = [h for h in hands if h.agent_knocked]
    gins = sum(h.end == ge.HandEnd.GIN.value for h in knocks)
    undercuts = sum(h.undercut for h in knocks)
    return OpenSpielMatch(
        agent=agent,
        opponent=opponent,
        hands=tuple(hands),
        deals=len(by_deal),
        mean_return=sum(returns) / n if n else 0.0,
        mean_return_ci=mean_interval(returns),
        mean_return_ci_deals=mean_interval(deal_means),
        decided=len(decided),
        wins=wins,
        win_rate=wins / len(decided) if decided else 0.0,
        win_rate_ci=wilson_interval(wins, len(decided)),
        win_rate_ci_deals=mean_interval(deal_shares, clip=(0.0, 1.0)),
        refused_knocks=sum(h.refused_knocks for h in hands),
        seconds_per_hand=sum(h.seconds for h in hands) / n if n else 0.0,
        win_share=(wins + (n - len(decided)) / 2) / n if n else 0.0,
        win_share_ci=wilson_interval(wins + (n - len(decided)) / 2, n),
        points_per_hand=sum(own) / n if n else 0.0,
        points_per_hand_ci=mean_interval(own),
        opponent_points_per_hand=sum(theirs) / n if n else 0.0,
        opponent_points_per_hand_ci=mean_interval(theirs),
        knock_rate=len(knocks) / n if n else 0.0,
        knock_rate_ci=wilson_interval(len(knocks), n),
        gin_rate=gins / n if n else 0.0,
        gin_rate_ci=wilson_interval(gins, n),
        undercut_rate=undercuts / len(knocks) if knocks else 0.0,
        undercut_rate_ci=wilson_interval(undercuts, len(knocks)),
    )


def play_openspiel(
    agent: GinAgent,
    opponent: str | Opponent,
    deals: int,
    seed: int = 0,
    progress: Callable[[HandRecord], None] | None = None,
    *,
    lays_off: bool = True,
    watch: BotWatch | None = None,
) -> OpenSpielMatch:
    """``deals`` deals (seeds ``seed``, ``seed + 1``...), each played twice with the seats
    swapped, the agent's seat alternating hand by hand; ``progress`` sees every hand;
    ``lays_off`` and ``watch`` as :func:`play_hand` takes them."""
    bot = parse_opponent(opponent) if isinstance(opponent, str) else opponent
    check_agent(agent)
    if not isinstance(deals, int) or isinstance(deals, bool) or deals < 1:
        raise OpenSpielGinError(f"deals must be a whole number of at least 1, got {deals!r}")
    hands = []
    for deal in range(deals):
        for seat in (0, 1):  # the deal from both seats, so the agent's seat alternates hand by hand
            record = play_hand(agent, bot, deal, seed + deal, seat, lays_off=lays_off, watch=watch)
            hands.append(record)
            if progress is not None:
                progress(record)
    return summarise(agent_name(agent), bot.name, hands)


__all__ = [
    "BotWatch",
    "HandRecord",
    "OpenSpielGinError",
    "OpenSpielMatch",
    "Opponent",
    "answer_in_openspiel",
    "deal_openspiel",
    "from_os",
    "knock_in_openspiel",
    "os_melds",
    "parse_opponent",
    "play_hand",
    "play_openspiel",
    "summarise",
    "to_os",
]
