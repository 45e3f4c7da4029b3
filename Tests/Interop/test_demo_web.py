"""The README's web walkthrough, run as written against the demo tenant: a Stripe checkout and subscription signed with
the demo endpoint secret (`entctl dev stripe`) unlock a stream another "device" holds open, a cancellation at the
period's end keeps access without renewal, and an anonymous purchase is redeemed once, with its redemption code."""

from __future__ import annotations

from conftest import DEMO_TENANTS_FILE
from test_demo_app_store import run_readme_block


def test_readme_web_walkthrough_runs_as_written(tenants_server):
    result = run_readme_block("## Web purchases (Stripe)", tenants_server(DEMO_TENANTS_FILE))
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert "200 checkout.session.completed: the buyer is kept for subscription 'sub_erin'" in out, out
    assert "200 customer.subscription.created: applied to erin" in out, out
    pushed = [line for line in out.splitlines() if "STATUS_CHANGED" in line and "pro until" in line]
    assert pushed and "(WEB" in pushed[0], out
    status = out[out.rindex("erin  ACTIVE"):].splitlines()
    assert status[1].startswith("  pro until ") and "WEB" in status[1] and "renews" not in status[1], status
    frank = out[out.index("frank  ACTIVE"):].splitlines()
    assert any("premium lifetime (WEB" in line for line in frank[1:3]), frank
    # The purchase nobody held is now frank's (its data unchanged), from Stripe's test mode.
    assert "purchase: UNCHANGED  premium_lifetime_web  pi_guest  TEST  lifetime  active  claimed (nobody held it)" in out
    # One purchase, found once by its payment intent (which is also one of its references).
    assert "\nfrank  ORIGINAL_TRANSACTION_ID  WEB pi_guest\n" in out and out.count("  WEB pi_guest") == 1, out
    assert "refused: the code was used" in out and "already used" in result.stderr, result.stderr
