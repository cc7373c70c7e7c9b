"""Round trips of every message type, and the decoder's refusals."""
from __future__ import annotations

import msgpack
import pytest

import protocol as p
from protocol.codec import PROTOCOL_VERSION

OPTION = p.OptionInfo(name="target", label="Points", kind="choice", default=30, choices=(30, 15), help="h")
VARIANT = p.VariantInfo(name="argentino", title="Truco", player_counts=(2, 4, 6), options=(OPTION,),
                        senas=("ancho_espadas", "nada"))
TABLE = p.TableInfo(
    table_id="t1", title="mesa", variant="argentino", owner="ana", seats=("ana", None),
    options={"target": 30, "flor": True, "mazo": "always"}, private=True, status="waiting", spectators=2,
)
LINE = p.ChatLine(sender="ana", text="hola", ts=1_700_000_000)
PLAYER = p.PlayerInfo(name="ana", guest=False, table_id="t1")
GAME = p.GameSummary(table_id="t1", match_no=1, variant="argentino", title="mesa", seats=("ana", "Bot 1"),
                     scores=(15, 9), winner=0, hands=12, finished_at=1_700_000_000)

EXAMPLES: list[p.Message] = [
    p.ClaimName(name="ana", lang="es"),
    p.SendChat(text="hola"),
    p.CreateTable(variant="argentino", players=4, options={"flor": False, "target": 15}, private=True, title="x",
                  owner_starts=True),
    p.JoinTable(table_id="t1", seat=1),
    p.JoinTable(table_id="t1"),
    p.JoinByCode(code="ABC234"),
    p.QuickPlay(variant="paulista"),
    p.QuickPlay(variant="argentino", players=4),
    p.LeaveTable(table_id="t1"),
    p.WatchTable(table_id="t1"),
    p.Ping(n=7),
    p.Welcome(name="ana", guest=True, variants=(VARIANT,), chat_max=200),
    p.NameRefused(name="root", reason="reserved_word", suggestion="root2"),
    p.LobbySnapshot(players=(PLAYER,), tables=(TABLE,), chat=(LINE,)),
    p.PlayerUpdated(player=PLAYER),
    p.PlayerLeft(name="ana"),
    p.TableUpdated(table=TABLE),
    p.TableRemoved(table_id="t1"),
    p.TableCreated(table_id="t1", code="ABC234"),
    p.Seated(table_id="t1", seat=0),
    p.Seated(),
    p.Chat(line=LINE),
    p.Error(code="bad_frame", message="nope"),
    p.Notice(code="shutdown"),
    p.Pong(n=7),
    p.AddBot(table_id="t1"),
    p.AddBot(table_id="t1", seat=3),
    p.SwapSeats(table_id="t1", a=0, b=3),
    p.StartTable(table_id="t1"),
    p.AddBot(table_id="t1", level="hard"),
    p.TableAction(table_id="t1", call="play", card="1e", cid=5),
    p.TableAction(table_id="t1", call="truco"),
    p.TableChat(table_id="t1", text="buena"),
    p.TableChat(table_id="t1", text="tengo el ancho", partners=True),
    p.MakeSena(table_id="t1", sena="ancho_espadas"),
    p.SenaSeen(table_id="t1", seat=2, to=(0,), sena="ancho_espadas", deal_no=3),
    p.SenaSeen(table_id="t1", seat=1, to=(3, 5), sena="flor", deal_no=1, caught=True),
    p.Chat(line=p.ChatLine(sender="ana", text="vamos", ts=1, table_id="t1", partners=True)),
    p.Rematch(table_id="t1"),
    p.TableUpdate(
        table_id="t1", seq=12, seat=None,
        seats=(p.SeatInfo(name="ana"), p.SeatInfo(name="Bot 1", bot=True, level="easy"), p.SeatInfo(name="x", away=True)),
        view=p.TableView(
            variant="uruguayo", own_cards=("1e", "7o"), scores=(3, 4), face_up="4c", turn=2,
            tricks=(((0, "1e"), (1, "7o")),), current_trick=((0, "3c"),), trick_results=(None,),
            legal=(p.LegalCall(seat=0, call="truco"), p.LegalCall(seat=0, call="play", card="3e"),
                   p.LegalCall(seat=0, call="piedras", amount=4)),
            options=(("flor", True), ("target", 30), ("envido_max_replies", "a")),
            envido_result=(1, 2), envido_declarations=((0, 27), (1, None)),
            card_marks=(p.CardMark(card="2c", role="pieza", envido=30),),
            bets=(p.BetWorth(kind="truco", calls=("truco",), wanted=2, refused=1),),
            truco_steps=(p.TrucoStep(call="truco", wanted=2, refused=1),),
            penalties=((0, "flor_hidden", 3),), card_refusals=(("7o", "not_your_turn"),),
        ),
        events=(p.Acted(seat=1, call="truco"), p.HandDealt(deal_no=2, dealer=1, deal_kind="normal",
                                                             hands=(("1e", "7o", "3c"), None), face_up="4c"),
                p.PointsScored(team=0, points=2, reason="truco", scores=(2, 0)),
                p.MatchStarted(variant="uruguayo", options={"flor": True, "target": 30}, n_players=2,
                               first_dealer=0)),
        waiting=(0, 2), timer=12.5,
        rematch_votes=(1,),
    ),
    p.Chat(line=p.ChatLine(sender="ana", text="hola", ts=1, table_id="t1")),
    p.CreateTable(variant="argentino", players=2, options={}, turn_timer=60),
    p.TableUpdate(table_id="t1", seq=3, seat=1, seats=(p.SeatInfo(name="ana"),), view=p.TableView(),
                  resume_code="ABC234"),
    p.ResumeSeat(code="ABC234"),
    p.MyGames(),
    p.ReplayHand(table_id="t1", match_no=2, hand=3),
    # deals anyone can verify (protocol/deal_proof.py)
    p.DealSeal(table_id="t1", match_no=1, commitment="ab" * 32),
    p.DealSeal(table_id="t1", match_no=1, commitment="ab" * 32, secret="cd" * 32),
    p.ProveDeals(table_id="t1", match_no=1),
    p.AddEntropy(table_id="t1", entropy="0f" * 16),
    p.JoinTable(table_id="t1", seat=1, entropy="ab" * 8),
    p.DealsProof(table_id="t1", match_no=1, variant="paulista", players=2, commitment="ab" * 32,
                 secret="cd" * 32, deck=("Ac", "2c"), face_up=True, first_dealer=1, dealer_drawn=True,
                 deals=(p.DealRecord(label="deal/2", dealer=1, hands=(("Ac", "2c", "3c"), ("4d", "5d", "6d")),
                                     face_up="Qc"),)),
    p.GamesList(games=(GAME,)),
    p.GamesList(),
    p.ReplayStep(game=GAME, hand=2, events=(p.Acted(seat=0, call="play", card="1e"),
                                             p.SeatCovered(seat=1, reason="away"))),
    p.ReplayStep(game=GAME, hand=1, events=(), hands=12, card_notation="french"),
    p.MyStats(),
    p.StatsReport(games=3, wins=2, points_for=40, points_against=31, envidos_won=4, trucos_won=5,
                  trucos_refused=1,
                  ratings=(p.RatingLine(variant="argentino", players=4, rating=3.25, games=3, wins=2),),
                  recent=(p.MatchLine(variant="argentino", players=4, title="mesa", won=True, points_for=15,
                                      points_against=9, rated=True, change=1.5, finished_at=1_700_000_000),
                          p.MatchLine(variant="paulista", players=2, abandoned=True))),
    p.StatsReport(keyed=False),
    p.Leaderboard(variant="argentino", players=6),
    p.PlayerUpdated(player=p.PlayerInfo(name="ana", guest=False, rating=-3.5)),
    p.LeaderboardReport(variant="argentino", players=2,
                        lines=(p.BoardLine(name="ana", rating=7.5, games=10, wins=8),)),
    # the operators' commands and their answers (protocol/moderation.py)
    p.Online(),
    p.Kick(name="ana", reason="insults"),
    p.Restrict(what="ban", on="address", target="203.0.113.7", minutes=60, reason="flood", prefix=True),
    p.Restrict(what="mute", on="key", target="SHA256:" + "A" * 43),
    p.Lift(number=3),
    p.ListRestrictions(),
    p.Broadcast(text="restart at 10:00"),
    p.ModerationLog(limit=20),
    p.OnlineReport(lines=(p.OnlineLine(conn_id=4, name="ana", fingerprint="SHA256:x", address="::1",
                                       table_id="t1", seat=0, muted=True, operator=False),)),
    p.RestrictionsReport(lines=(p.RestrictionLine(number=1, what="ban", on="name", target="ana",
                                                  until=1_700_000_000, reason="r", by="SHA256:op", at=1),)),
    p.LogReport(lines=(p.LogLine(at=1, by="SHA256:op", action="kick", target="ana", reason="r"),)),
    p.Done(action="kick", text="ana was disconnected"),
    p.ReportPlayer(name="mallory", reason="abuse", text="insults all the time"),
    p.Reports(limit=10),
    p.SettleReports(number=7, reason="muted for a day"),
    p.NameOperator(key="SHA256:" + "B" * 43),
    p.NameOperator(key="beto", on=False),
    p.ListOperators(),
    p.OperatorsReport(lines=(p.OperatorLine(fingerprint="SHA256:op"),
                             p.OperatorLine(fingerprint="SHA256:b", named=True, by="SHA256:op", at=1_700_000_000))),
    p.CloseTable(table_id="t1", reason="a bug"),
    p.Ignore(name="mallory"),
    p.Ignore(name="mallory", on=False),
    p.Listening(ignored=("mallory", "eve"), hear="partners"),
    p.ChatSetting(hear="nobody"),
    p.ReportsReport(lines=(p.ReportLine(number=2, at=1, reported="mallory", reported_key="SHA256:m",
                                        reported_address="203.0.113.9", reason="abuse", text="t", by="ana",
                                        by_key="", reporters=2, table_id="t1", seats=("ana", "mallory"),
                                        evidence=("mallory: idiot", "ana: please stop")),)),
]


def test_every_message_type_has_an_example() -> None:
    assert {type(m) for m in EXAMPLES} == set(p.MESSAGE_TYPES.values())


@pytest.mark.parametrize("message", EXAMPLES, ids=lambda m: m.TYPE)
def test_round_trip(message: p.Message) -> None:
    assert p.decode(p.encode(message)) == message


@pytest.mark.parametrize("message", EXAMPLES, ids=lambda m: m.TYPE)
def test_round_trip_through_frames(message: p.Message) -> None:
    reader = p.FrameReader()
    data = p.frame(message) * 2
    out = []
    for i in range(len(data)):  # one byte at a time: the worst chunking
        out += reader.feed(data[i : i + 1])
    assert out == [message, message]
    assert reader.pending == 0


def _raw(**body: object) -> bytes:
    return msgpack.packb({"v": PROTOCOL_VERSION, **body})


@pytest.mark.parametrize(
    "data, reason",
    [
        (b"", "undecodable"),
        (b"\xc1", "undecodable"),
        (msgpack.packb([1, 2]), "must be a map"),
        (msgpack.packb({"t": "ping"}), "version"),
        (msgpack.packb({"v": 99, "t": "ping"}), "version"),
        (msgpack.packb({"v": True, "t": "ping"}), "version"),
        (_raw(t="nope"), "unknown message type"),
        (_raw(t=5), "unknown message type"),
        (_raw(t="join_table"), "missing field"),
        (_raw(t="ping", n="1"), "expected an integer"),
        (_raw(t="ping", n=True), "expected an integer"),
        (_raw(t="ping", n=-1), "out of range"),
        (_raw(t="create_table", variant="a", players=99, options={}), "out of range"),
        (_raw(t="create_table", variant="a", players=2, options={"x": [1]}), "unexpected value"),
        (_raw(t="create_table", variant="a", players=2, options={1: 2}), "undecodable"),
        (_raw(t="send_chat", text="x" * 5000), "longer than"),
        (_raw(t="claim_name", name=b"bytes"), "undecodable"),
        (msgpack.packb({"v": 1, "t": "ping", "n": msgpack.ExtType(1, b"x")}), "extension"),
        (b"\x91" * 3000 + b"\x00", "undecodable"),
        (b"\x00" * (p.MAX_FRAME + 1), "exceeds"),
    ],
)
def test_decoder_refuses(data: bytes, reason: str) -> None:
    with pytest.raises(p.ProtocolError, match=reason):
        p.decode(data)


def test_unknown_fields_are_ignored_for_forward_compatibility() -> None:
    assert p.decode(_raw(t="ping", n=3, later_field="x")) == p.Ping(n=3)


def test_frame_reader_refuses_oversize_announcement_before_buffering() -> None:
    reader = p.FrameReader(max_frame=100)
    with pytest.raises(p.ProtocolError, match="exceeds"):
        reader.feed((101).to_bytes(4, "big") + b"x")
    assert reader.pending == 0


def test_encoder_refuses_oversize_message() -> None:
    huge = p.LobbySnapshot(players=tuple(p.PlayerInfo(name=f"p{i:014d}") for i in range(3000)), tables=(), chat=())
    with pytest.raises(p.ProtocolError, match="exceeds"):
        p.encode(huge)
