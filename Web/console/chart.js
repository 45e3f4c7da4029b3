// A line chart drawn as SVG by hand: a line and a marker per point for each series, value and date ticks, and a
// title on every marker. Values may be null (no figure: a gap in the line). Colors are presentation attributes, so
// the page's style-src 'self' policy holds.

const svgNS = "http://www.w3.org/2000/svg";
export const palette = ["#2457c5", "#0f7a3a", "#b4541a", "#7a3db8", "#a8261b", "#13808a", "#946200", "#5d6878"];

function node(tag, attributes = {}, text = "") {
  const element = document.createElementNS(svgNS, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  if (text) element.textContent = text;
  return element;
}

// About five round steps from `low` to `high`: 1, 2 or 5 times a power of ten.
function ticks(low, high) {
  const span = high - low || Math.abs(high) || 1;
  const rough = span / 5;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough);
  const values = [];
  const top = Math.ceil(high / step) * step;
  for (let value = Math.floor(low / step) * step; value <= top + step / 2; value += step) values.push(value);
  return values;
}

// `series`: [{ label, color, points: [{ date, value, title }] }], every series with the same dates.
// `format(value)` writes an axis value; `onPoint(seriesIndex, pointIndex)` answers a click on a marker.
export function lineChart(series, { format, onPoint, width = 960, height = 320 }) {
  const margin = { top: 12, right: 16, bottom: 28, left: 72 };
  const dates = series[0]?.points.map((p) => p.date) ?? [];
  const values = series.flatMap((s) => s.points.map((p) => p.value)).filter((v) => v !== null);
  const scale = ticks(Math.min(0, ...values), Math.max(0, ...values));
  const low = scale[0], high = scale[scale.length - 1] === low ? low + 1 : scale[scale.length - 1];
  const innerWidth = width - margin.left - margin.right, innerHeight = height - margin.top - margin.bottom;
  const x = (index) => margin.left + (dates.length > 1 ? (index / (dates.length - 1)) * innerWidth : innerWidth / 2);
  const y = (value) => margin.top + innerHeight - ((value - low) / (high - low)) * innerHeight;

  const svg = node("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", class: "chart" });
  svg.append(node("title", {}, series.map((s) => s.label).join(", ")));
  for (const value of scale) {
    svg.append(node("line", { x1: margin.left, x2: width - margin.right, y1: y(value), y2: y(value),
      stroke: value === 0 ? "#9aa5b5" : "#e3e7ee" }));
    svg.append(node("text", { x: margin.left - 8, y: y(value) + 4, "text-anchor": "end", "font-size": 12,
      fill: "#5d6878" }, format(value)));
  }
  const labelled = new Set([0, dates.length - 1, Math.floor((dates.length - 1) / 2),
    Math.floor((dates.length - 1) / 4), Math.floor(((dates.length - 1) * 3) / 4)]);
  for (const index of labelled) {
    if (index < 0) continue;
    const anchor = dates.length > 1 && index === 0 ? "start" : index === dates.length - 1 && index > 0 ? "end" : "middle";
    svg.append(node("text", { x: x(index), y: height - 8, "text-anchor": anchor, "font-size": 12, fill: "#5d6878" },
      dates[index]));
  }
  series.forEach((s, seriesIndex) => {
    // A line through each run of points that have a value.
    let run = [];
    const flush = () => {
      if (run.length > 1) {
        svg.append(node("polyline", { points: run.join(" "), fill: "none", stroke: s.color, "stroke-width": 2,
          "data-series": seriesIndex }));
      }
      run = [];
    };
    s.points.forEach((p, pointIndex) => {
      if (p.value === null) { flush(); return; }
      run.push(`${x(pointIndex).toFixed(1)},${y(p.value).toFixed(1)}`);
      const marker = node("circle", { cx: x(pointIndex), cy: y(p.value), r: 4, fill: s.color, class: "point",
        "data-series": seriesIndex, "data-point": pointIndex, "data-date": p.date, "data-value": p.value,
        tabindex: 0 });
      marker.append(node("title", {}, p.title));
      marker.addEventListener("click", () => onPoint(seriesIndex, pointIndex));
      marker.addEventListener("keydown", (event) => { if (event.key === "Enter") onPoint(seriesIndex, pointIndex); });
      svg.append(marker);
    });
    flush();
  });
  return svg;
}

// A legend's square of `color`.
export function swatch(color) {
  const svg = node("svg", { width: 12, height: 12, viewBox: "0 0 12 12", class: "swatch", "aria-hidden": "true" });
  svg.append(node("rect", { width: 12, height: 12, rx: 2, fill: color }));
  return svg;
}
