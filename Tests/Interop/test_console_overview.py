"""The admin console's Overview page in headless Chromium: a Stripe test-mode workload (subscriptions over the last
month in two countries, renewals, a refund), then the page charts a metric exactly as GetMetrics answers it (every
series in the legend, every point's marker at its value), switches metric and grouping, downloads the CSV the API's
figures make, and a click on a point lists the customers ListMetricRows gives, each a link to their page.
Screenshots go to the artifacts directory as `console-overview*.png`."""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

import fake_stripe as fs
from conftest import REPO_ROOT
from console_support import body, browser, screenshot, sign_in, wait_for  # noqa: F401 (browser: a fixture)
from entitlement_support import unique_id, write_tenants
from stripe_support import StripeEnv, stripe_tenant, subscription_for

DAY = 86_400
SANDBOX = 2


@pytest.fixture(scope="module")
def tenants():
    return {"a": stripe_tenant("overview-a")}


@pytest.fixture(scope="module")
def server(tenants_server, tmp_path_factory, tenants):
    tenants_file = tmp_path_factory.mktemp("overview-tenants") / "tenants.json"
    write_tenants(tenants_file, tenants.values())
    return tenants_server(tenants_file, {"admin_console": {"directory": str(REPO_ROOT / "Web" / "console")}})


@pytest.fixture(scope="module")
def env(server, tenants, protos):
    made = StripeEnv(server, tenants, protos)
    rng = random.Random(7)
    start = fs.now() - 28 * DAY
    for index in range(8):
        user, begins = f"buyer-{index}-{unique_id()}", start + rng.randrange(0, 10 * DAY)
        currency, country = [("usd", "US"), ("eur", "DE")][index % 2]
        sub = subscription_for(user, period_start=begins, period_end=begins + 7 * DAY, status="active")
        made.post_ok("a", fs.event("customer.subscription.created", sub, created=begins))
        period = begins
        for renewal in range(rng.randrange(1, 4)):
            invoice = fs.invoice(subscription_id=sub["id"], period_start=period, period_end=period + 7 * DAY,
                                 payment_intent=(pi := fs.new_id("pi")), amount=999, country=country,
                                 currency=currency, billing_reason="subscription_create" if not renewal else None)
            made.post_ok("a", fs.event("invoice.paid", invoice, created=period))
            period += 7 * DAY
        if index == 3:
            charge = fs.charge(payment_intent=pi, amount=999)
            charge["currency"] = currency
            made.post_ok("a", fs.event("charge.refunded", charge, created=period - DAY))
    yield made
    made.close()


def first_and_last():
    today = datetime.now(timezone.utc).date()
    return today - timedelta(days=29), today


def get_metrics(env, metric: int, group_by=()):
    first, last = first_and_last()
    return env.a_admin.call("GetMetrics", env.a_admin.message(
        "GetMetricsRequest", metric=metric, start_date=first.isoformat(), end_date=last.isoformat(),
        group_by=list(group_by), environment=SANDBOX))


def show(driver, metric: str, group_by: str = "") -> None:
    """Picks the metric, grouping and Sandbox purchases over the last 30 days (the default range) and shows them."""
    Select(driver.find_element(By.ID, "metric")).select_by_visible_text(metric)
    Select(driver.find_element(By.ID, "group-by")).select_by_value(group_by)
    Select(driver.find_element(By.ID, "environment")).select_by_value("sandbox")
    before = body(driver, "chart")
    driver.find_element(By.ID, "show-metric").click()
    wait_for(driver, f"the {metric} chart", lambda d: body(d, "chart") != before and body(d, "chart").startswith(
        {"MRR": "12 ", "Revenue": "1 ", "Active subscriptions": "10 "}[metric]))


def drawn(driver) -> dict:
    """{legend label: [(date, value)]} of the markers on the chart."""
    labels = [item.get_attribute("data-label") for item in driver.find_elements(By.CSS_SELECTOR, "#legend li")]
    out = {label: [] for label in labels}
    for marker in driver.find_elements(By.CSS_SELECTOR, "#chart circle.point"):
        out[labels[int(marker.get_attribute("data-series"))]].append(
            (marker.get_attribute("data-date"), float(marker.get_attribute("data-value"))))
    return out


def test_the_chart_is_get_metrics_and_a_point_lists_its_customers(server, env, browser, tmp_path):
    first, last = first_and_last()
    sign_in(browser, server, env.tenants["a"].secret_key)
    browser.find_element(By.ID, "nav-overview").click()
    wait_for(browser, "the overview", lambda d: body(d, "view") == "overview")

    # MRR per currency: a line per currency, a marker per day at the API's value in units.
    show(browser, "MRR")
    response = get_metrics(env, 12)
    assert len(response.series) == 2
    want = {f"All · {s.currency}": [(p.start_date, p.value / 1000) for p in s.points] for s in response.series}
    assert drawn(browser) == want
    assert len(want["All · USD"]) == 30 and any(value for _, value in want["All · EUR"])
    screenshot(browser, "overview")

    # Active subscriptions grouped by country: each country a line, counts as they are.
    show(browser, "Active subscriptions", "country")
    response = get_metrics(env, 10, [4])
    assert drawn(browser) == {s.group[0].value: [(p.start_date, float(p.value)) for p in s.points]
                              for s in response.series}
    assert set(drawn(browser)) == {"US", "DE"}

    # The CSV, downloaded as a person would: the API's figures, one line per point.
    show(browser, "Revenue", "country")
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    browser.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
    browser.find_element(By.ID, "csv").click()
    name = f"revenue-{first.isoformat()}-{last.isoformat()}.csv"
    wait_for(browser, "the download", lambda d: (downloads / name).exists())
    lines = (downloads / name).read_text().splitlines()
    assert lines[0] == "start_date,country,currency,value,denominator"
    response = get_metrics(env, 1, [4])
    assert lines[1:] == [f"{p.start_date},{s.group[0].value},{s.currency},{p.value // 1000}.{p.value % 1000:03d},0"
                         for s in response.series for p in s.points]

    # A click on a day's revenue lists its payments and their buyers, as ListMetricRows does.
    series = next(s for s in response.series if s.group[0].value == "DE")
    index = next(i for i, p in enumerate(series.points) if p.value)
    labels = [item.get_attribute("data-label") for item in browser.find_elements(By.CSS_SELECTOR, "#legend li")]
    marker = browser.find_element(
        By.CSS_SELECTOR, f"#chart circle.point[data-series='{labels.index('DE · EUR')}'][data-point='{index}']")
    browser.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", marker)
    wait_for(browser, "the point's rows", lambda d: body(d, "rows") not in ("", "0"))
    request = env.a_admin.message("ListMetricRowsRequest", metric=1, start_date=series.points[index].start_date,
                                  end_date=series.points[index].start_date, environment=SANDBOX, currency="EUR")
    request.group.add(dimension=4, value="DE")
    rows = env.a_admin.call("ListMetricRows", request).rows
    listed = [row.get_attribute("data-app-user-id")
              for row in browser.find_elements(By.CSS_SELECTOR, "#point-rows tr[data-app-user-id]")]
    assert listed == [row.app_user_id for row in rows] and all(user.startswith("buyer-") for user in listed)
    screenshot(browser, "overview-rows")

    # Each customer is a link to their page.
    browser.find_element(By.CSS_SELECTOR, "#point-rows a").click()
    wait_for(browser, "the customer's page", lambda d: body(d, "view") == "customer")
    assert browser.find_element(By.ID, "customer-id").text == listed[0]
    assert first.isoformat() <= last.isoformat()
