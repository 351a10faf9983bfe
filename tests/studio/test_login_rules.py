"""The rules of Studio's login tickets, sessions and request checks (no server needed)."""

from __future__ import annotations

from remecli.surfaces.studio import access

TOKEN = "the-serve-token"


def test_a_ticket_works_once_within_its_time_and_only_with_the_right_token() -> None:
    sessions = access.Sessions(TOKEN)
    ticket = access.mint_ticket(TOKEN, now=1_000)
    session_id = sessions.redeem(ticket, now=1_010)
    assert session_id is not None and sessions.get(session_id, now=1_020) is not None
    assert sessions.redeem(ticket, now=1_011) is None  # used
    late = access.mint_ticket(TOKEN, now=1_000)
    assert sessions.redeem(late, now=1_000 + access.TICKET_SECONDS + 1) is None  # expired
    forged = access.mint_ticket("another-token", now=1_000)
    assert sessions.redeem(forged, now=1_001) is None
    stamp, nonce, signature = access.mint_ticket(TOKEN, now=1_000).split(".")
    assert sessions.redeem(f"{int(stamp) + 60}.{nonce}.{signature}", now=1_061) is None
    assert sessions.redeem("garbage", now=1_000) is None


def test_sessions_end_and_csrf_tokens_belong_to_one_session() -> None:
    sessions = access.Sessions(TOKEN)
    first = sessions.redeem(access.mint_ticket(TOKEN, now=0), now=0)
    second = sessions.redeem(access.mint_ticket(TOKEN, now=0), now=0)
    assert first and second
    one, two = sessions.get(first, now=1), sessions.get(second, now=1)
    assert one is not None and two is not None
    assert access.csrf_matches(one.csrf, one) and not access.csrf_matches(two.csrf, one)
    assert not access.csrf_matches(None, one) and not access.csrf_matches("", one)
    assert sessions.get(first, now=access.SESSION_SECONDS + 1) is None
    assert sessions.get("made-up", now=1) is None


def test_host_and_origin_rules() -> None:
    assert access.host_allowed("127.0.0.1:8765") and access.host_allowed("localhost")
    assert access.host_allowed("[::1]:8765")
    assert not access.host_allowed("attacker.example:8765") and not access.host_allowed(None)
    same = "http://127.0.0.1:8765"
    assert access.origin_allowed(same, "127.0.0.1:8765", "same-origin")
    assert not access.origin_allowed("http://127.0.0.1:9", "127.0.0.1:8765", "same-site")
    assert not access.origin_allowed("http://127.0.0.1:9", "127.0.0.1:8765", None)
    assert not access.origin_allowed(None, "127.0.0.1:8765", "cross-site")
    assert not access.origin_allowed(None, "127.0.0.1:8765", None)  # no origin named: refused
    assert access.origin_allowed(None, "127.0.0.1:8765", None, same + "/studio")  # its Referer
    assert not access.origin_allowed(None, "127.0.0.1:8765", None, "http://127.0.0.1:9/")
