// The Overview page: a metric of AdminService.GetMetrics over a range, drawn as a chart (chart.js), grouped and
// filtered as picked, downloadable as CSV; a click on a point lists what it counts (ListMetricRows), each row's
// customer a link to their page. Everything shown is set as text.

import { lineChart, palette, swatch } from "./chart.js";
import * as metrics from "./metric-messages.js";

const $ = (id) => document.getElementById(id);
const day = 86_400_000;
const isoDay = (date) => date.toISOString().slice(0, 10);
const addDays = (text, days) => isoDay(new Date(Date.parse(text + "T00:00:00Z") + days * day));
// The most series the chart draws; the CSV has them all.
const drawnSeries = palette.length;

// Milliunits as units with three decimals, exactly ("-9.990").
function units(milliunits) {
  const negative = milliunits < 0n;
  const magnitude = negative ? -milliunits : milliunits;
  return `${negative ? "-" : ""}${magnitude / 1000n}.${String(magnitude % 1000n).padStart(3, "0")}`;
}

export function overview({ call, el, say, failed }) {
  let shown = null;  // { request, metric, response } of the chart on screen
  let listing = null;  // the point whose rows are listed, and their next page

  const metricSelect = $("metric");
  metricSelect.replaceChildren(...metrics.Metrics.map((m) => el("option", { value: String(m.id) }, m.label)));

  function setRange(days) {
    const to = isoDay(new Date());
    $("to").value = to;
    $("from").value = addDays(to, 1 - days);
  }

  function picked() {
    const dimension = $("group-by").value;
    return {
      metric: Number(metricSelect.value), from: $("from").value, to: $("to").value,
      interval: metrics.Intervals[$("interval").value], groupBy: dimension ? [metrics.Dimensions[dimension]] : [],
      environment: metrics.Environments[$("environment").value], converted: $("converted").checked,
    };
  }

  // What a point's figure is, as the chart draws it (a number, or null for none), and as its title says it.
  function figure(metric, series, point, reporting) {
    if (metric.kind === "rate") {
      const rate = point.denominator ? (Number(point.value) / Number(point.denominator)) * 100 : null;
      return { value: rate, text: rate === null ? "no denominator" : `${rate.toFixed(1)}% (${point.value}/${point.denominator})` };
    }
    if (metric.kind === "count") return { value: Number(point.value), text: String(point.value) };
    const own = `${units(point.value)} ${series.currency}`;
    if (!reporting) return { value: Number(point.value) / 1000, text: own };
    if (point.convertedValue === null) {
      return { value: null, text: `${own}, no ${reporting} rate for ${point.missingRateDates.join(", ")}` };
    }
    const rates = point.rates.map((r) => `${r.rate} (${r.date})`).join(", ");
    return {
      value: Number(point.convertedValue) / 1000,
      text: `${own} = ${units(point.convertedValue)} ${reporting}${rates ? " at " + rates : ""}`,
    };
  }

  const seriesLabel = (series, reporting) => {
    const group = series.group.map((g) => g.value || "(none)").join(" · ") || "All";
    if (!series.currency) return group;
    return `${group} · ${series.currency}${reporting && series.currency !== reporting ? " → " + reporting : ""}`;
  };

  function csv(request, response, metric) {
    const dimension = $("group-by").value;
    const converting = Boolean(response.reportingCurrency);
    const header = ["start_date", ...(dimension ? [dimension] : []), "currency", "value", "denominator",
      ...(converting ? ["converted_value", "rates", "missing_rate_dates"] : [])];
    const quoted = (field) => (/[",\r\n]/.test(field) ? `"${field.replaceAll('"', '""')}"` : field);
    const lines = [header.join(",")];
    for (const series of response.series) {
      for (const point of series.points) {
        const fields = [point.startDate, ...series.group.map((g) => g.value), series.currency,
          metric.kind === "amount" ? units(point.value) : String(point.value), String(point.denominator)];
        if (converting) {
          fields.push(point.convertedValue === null ? "" : units(point.convertedValue),
            point.rates.map((r) => `${r.date}=${r.rate}`).join(" "), point.missingRateDates.join(" "));
        }
        lines.push(fields.map(quoted).join(","));
      }
    }
    return lines.join("\r\n") + "\r\n";
  }

  async function show() {
    const request = picked();
    const metric = metrics.Metrics.find((m) => m.id === request.metric);
    const response = await call("GetMetrics", metrics.metricsRequest(request), metrics.metricsResponse);
    shown = { request, metric, response };
    listing = null;
    $("point-card").hidden = true;
    const reporting = response.reportingCurrency;
    $("chart-title").textContent = `${metric.label}, ${request.from} to ${request.to}`
      + (reporting && metric.kind === "amount" ? ` (in ${reporting})` : "");
    const total = (s) => s.points.reduce((sum, p) => sum + Math.abs(Number(p.value)), 0);
    const drawn = response.series.map((s, index) => ({ s, index }))
      .sort((a, b) => total(b.s) - total(a.s)).slice(0, drawnSeries);
    const chartSeries = drawn.map(({ s }, position) => ({
      label: seriesLabel(s, reporting), color: palette[position],
      points: s.points.map((p) => {
        const shownFigure = figure(metric, s, p, metric.kind === "amount" ? reporting : "");
        return { date: p.startDate, value: shownFigure.value, title: `${p.startDate}: ${shownFigure.text}` };
      }),
    }));
    const format = metric.kind === "rate" ? (v) => `${v}%` : (v) => v.toLocaleString("en-US");
    $("chart").replaceChildren(chartSeries.length
      ? lineChart(chartSeries, { format, onPoint: (seriesIndex, pointIndex) => {
        listRows(drawn[seriesIndex].s, pointIndex).catch(failed);
      } })
      : el("p", { class: "hint" }, "Nothing in this range."));
    $("legend").replaceChildren(...chartSeries.map((s) => el("li", { "data-label": s.label }, swatch(s.color), s.label)));
    const hidden = response.series.length - drawn.length;
    $("chart-note").textContent = hidden > 0 ? `${hidden} smaller series are in the CSV only.` : "";
    const link = $("csv");
    if (link.href.startsWith("blob:")) URL.revokeObjectURL(link.href);
    link.href = URL.createObjectURL(new Blob([csv(request, response, metric)], { type: "text/csv" }));
    link.download = `${metric.label.toLowerCase().replaceAll(" ", "-")}-${request.from}-${request.to}.csv`;
    link.hidden = false;
    document.body.dataset.chart = `${metric.id} ${response.series.length}`;
    say("");
  }

  async function listRows(series, pointIndex, more = false) {
    const { request, metric } = shown;
    const point = series.points[pointIndex];
    const following = series.points[pointIndex + 1];
    const to = following ? addDays(following.startDate, -1) : request.to;
    if (!more) listing = { series, pointIndex, nextPageToken: "" };
    const page = await call("ListMetricRows", metrics.rowsRequest({
      metric: request.metric, from: point.startDate, to, group: series.group, environment: request.environment,
      currency: series.currency, pageToken: more ? listing.nextPageToken : "",
    }), metrics.rowsResponse);
    listing.nextPageToken = page.nextPageToken;
    const rows = page.rows.map((row) => el("tr", { "data-app-user-id": row.appUserId },
      el("td", {}, row.occurredAt ? row.occurredAt.toISOString().slice(0, 16).replace("T", " ") : ""),
      el("td", {}, row.kind), el("td", {}, row.store), el("td", {}, row.productId),
      el("td", { class: "number" }, `${units(row.amountMilliunits)} ${row.currency}`),
      el("td", {}, row.appUserId
        ? el("a", { href: "#/customer/" + encodeURIComponent(row.appUserId) }, row.appUserId)
        : el("span", { class: "hint" }, "nobody"))));
    const body = $("point-rows").tBodies[0];
    if (more) body.append(...rows);
    else body.replaceChildren(...(rows.length ? rows : [el("tr", {}, el("td", { colSpan: 6, class: "hint" }, "none"))]));
    $("point-title").textContent = `${metric.label} ${point.startDate}${to !== point.startDate ? " to " + to : ""}: `
      + `${seriesLabel(series, "")}`;
    $("more-rows").hidden = !page.nextPageToken;
    $("point-card").hidden = false;
    document.body.dataset.rows = String(body.querySelectorAll("tr[data-app-user-id]").length);
  }

  $("metric-form").addEventListener("submit", (event) => {
    event.preventDefault();
    show().catch(failed);
  });
  for (const button of document.querySelectorAll("#ranges button")) {
    button.addEventListener("click", () => {
      setRange(Number(button.dataset.days));
      show().catch(failed);
    });
  }
  $("more-rows").addEventListener("click", () => listRows(listing.series, listing.pointIndex, true).catch(failed));
  setRange(30);

  return { open: () => show().catch(failed) };
}
