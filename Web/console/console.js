// The admin console: sign in with a secret key (kept in sessionStorage, sent only as the authorization header),
// find a customer, see what they may unlock and why, as it changes (StreamStatus), grant and revoke access,
// redeliver webhooks, chart the business's metrics (overview.js). Every call is an AdminService (or StreamStatus) call
// to this server over Connect, in JSON (the web SDK's client), audited like any other. Everything shown is set as
// text, never as markup.

import { ConnectClient, ConnectError } from "./entitlements.js";
import * as admin from "./admin-messages.js";
import { overview } from "./overview.js";

const keyStorage = "entitlementd-console-key";
const $ = (id) => document.getElementById(id);

let client = null;
let caller = null;
// The customer page on screen: its canonical ID, the stream's AbortController, the events' next page.
let page = null;

// An element with `props` (class, data-*, or DOM properties) and children (nodes, or strings as text).
function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (name === "class") node.className = value;
    else if (name.startsWith("data-")) node.setAttribute(name, value);
    else node[name] = value;
  }
  for (const child of children) node.append(child instanceof Node ? child : String(child ?? ""));
  return node;
}

const when = (date) => (date ? date.toISOString().replace("T", " ").replace(/\.\d+Z$/, " UTC") : "—");
// A number with its noun in agreement: "1 day", "30 days".
const counted = (count, singular, plural = singular + "s") => `${count} ${count === 1 ? singular : plural}`;

function say(text, { error = false } = {}) {
  const message = $("message");
  message.textContent = text;
  message.className = error ? "error" : "";
  message.hidden = !text;
}

// The server's own words for a refusal; anything else (a bug) as it is.
const errorText = (error) => (error instanceof ConnectError ? error.message : String(error));

function failed(error) {
  if (error?.code === "unauthenticated") { signOut("Your key is no longer accepted; sign in again."); return; }
  say(errorText(error), { error: true });
}

function show(view) {
  document.body.dataset.view = view;
  for (const id of ["sign-in", "home", "overview", "customer"]) $(id).hidden = id !== view;
  $("who").hidden = $("sign-out").hidden = $("nav").hidden = view === "sign-in";
}

const call = async (method, request, decode) => decode(await client.unary(admin.Service + method, request));
const charts = overview({ call, el, say, failed });

// Sign in and out

async function signIn(key) {
  const candidate = new ConnectClient(location.origin, key);
  const description = admin.keyDescription(
    await candidate.unary(admin.Service + "DescribeKey", admin.describeKeyRequest()));
  client = candidate;
  caller = description;
  sessionStorage.setItem(keyStorage, key);
  $("who").textContent = `${caller.tenantId} · ${caller.keyName}${caller.canWrite ? "" : " (read-only)"}`;
  document.body.dataset.canWrite = caller.canWrite ? "yes" : "no";
  $("grant-card").hidden = !caller.canWrite;
  $("attribute-form").hidden = !caller.canWrite;
  $("delete-card").hidden = !caller.canWrite;
  $("grant-entitlement").replaceChildren(...caller.entitlements.map((id) => el("option", { value: id }, id)));
}

function signOut(why = "") {
  stopStream();
  sessionStorage.removeItem(keyStorage);
  client = caller = page = null;
  show("sign-in");
  say(why, { error: Boolean(why) });
}

$("sign-in-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const input = $("key");
  try {
    await signIn(input.value.trim());
    input.value = "";
    say("");
    route();
  } catch (error) {
    say(errorText(error), { error: true });
  }
});
$("sign-out").addEventListener("click", () => signOut());

// Home: search and subscriber counts

$("search-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const query = $("query").value.trim();
  // The last search's results go at once, so nothing on the page answers a query it was not asked.
  $("results").replaceChildren();
  try {
    const found = await call("FindCustomers", admin.findCustomersRequest(query), admin.matches);
    const items = found.map((match) => {
      const what = match.store
        ? `${match.matchedBy} of the ${storeNames[match.store] ?? match.store} purchase ${match.originalTransactionId}`
        : match.matchedBy;
      if (!match.appUserId) return el("li", {}, el("b", {}, "A purchase nobody owns yet"), " · ", what);
      return el("li", {},
        el("a", { href: "#/customer/" + encodeURIComponent(match.appUserId), "data-app-user-id": match.appUserId },
          match.appUserId), " · matched by ", what);
    });
    $("results").replaceChildren(...(items.length ? items : [el("li", {}, `Nothing is named ${query}.`)]));
    say("");
  } catch (error) { failed(error); }
});

async function loadCounts() {
  try {
    const counts = await call("CountCustomers", admin.countCustomersRequest(), admin.counts);
    const rows = counts.entitlements.map((entry) =>
      el("tr", {}, el("td", {}, entry.id), el("td", { class: "number" }, entry.customers.toLocaleString())));
    rows.push(el("tr", {}, el("th", {}, "Any entitlement"), el("th", { class: "number" }, counts.active.toLocaleString())));
    $("counts").tBodies[0].replaceChildren(...rows);
    $("counted-at").textContent = "Counted " + when(counts.countedAt);
  } catch (error) { failed(error); }
}

// What the tenant asks of app calls and signs: the roll-out of user tokens (observe shows who required would refuse).
const outcomeNames = { accepted: "Accepted", would_refuse: "Would be refused", refused: "Refused" };

async function loadTrust() {
  try {
    const { userTokens: tokens, signedStatus } = await call("DescribeTrust", admin.describeTrustRequest(), admin.trust);
    document.body.dataset.userTokens = tokens.mode;
    const how = [];
    if (tokens.mode !== "OFF") {
      how.push(`issuer ${tokens.issuer}`, `at most ${counted(tokens.maxLifetimeSeconds, "second")}`);
      if (tokens.hs256Secrets) how.push(counted(tokens.hs256Secrets, "HS256 secret"));
      if (tokens.keysFrom) how.push(tokens.keysFrom === "file" ? "keys from a file" : `keys from ${tokens.keysFrom}`);
      how.push(tokens.allowsAnonymous ? "anonymous IDs need none" : "anonymous IDs need one");
    }
    $("user-token-mode").replaceChildren(el("b", {}, tokens.mode.toLowerCase()), how.length ? " · " + how.join(", ") : "");
    const rows = tokens.counts.map((entry) => el("tr", { "data-outcome": entry.outcome, "data-reason": entry.reason },
      el("td", {}, outcomeNames[entry.outcome] ?? entry.outcome), el("td", {}, entry.reason || "—"),
      el("td", { class: "number" }, entry.count.toLocaleString())));
    $("user-token-counts").tBodies[0].replaceChildren(...(rows.length ? rows : [none(3)]));
    $("user-tokens-since").textContent = "Counted by this server since " + when(tokens.countedSince);
    $("signed-status").textContent = signedStatus
      ? `Signed with ${signedStatus.signingKeyId}; published keys: ${signedStatus.keyIds.join(", ")}; ` +
        `valid offline for ${counted(signedStatus.offlineValidityHours, "hour")}.`
      : "Status is not signed.";
  } catch (error) { failed(error); }
}

// The customer page

const storeNames = { APP_STORE: "App Store", PLAY_STORE: "Google Play", WEB: "Stripe (web)", GRANT: "a grant" };
const none = (columns) => el("tr", {}, el("td", { colSpan: columns, class: "hint" }, "none"));

function why(entitlement) {
  const source = storeNames[entitlement.source] ?? entitlement.source;
  let text = `from ${source}`;
  if (entitlement.productId) text += ` (${entitlement.productId})`;
  text += entitlement.expiresAt ? `, until ${when(entitlement.expiresAt)}` : ", with no end";
  if (entitlement.inGracePeriod) text += ", in the billing grace period";
  else if (entitlement.inBillingRetry) text += ", in billing retry";
  else if (entitlement.expiresAt && entitlement.source !== "GRANT") text += entitlement.willRenew ? ", renews" : ", will not renew";
  return text;
}

function renderStatus(status) {
  const active = status.entitlements.map((e) => e.id).sort();
  document.body.dataset.entitlements = active.join(" ");
  $("state").replaceChildren(active.length
    ? el("span", { class: "good" }, "Has access")
    : el("span", { class: "bad" }, "No active entitlement"), ` · version ${status.version}`);
  $("entitlements").replaceChildren(...status.entitlements.map((e) =>
    el("li", { "data-entitlement": e.id }, el("b", {}, e.id), " ", why(e))));
}

function renewal(t) {
  if (t.revokedAt) return el("span", { class: "bad" }, `revoked ${when(t.revokedAt)}: ${t.revocationReason || "no reason given"}`);
  const notes = [];
  if (t.supersededBy) notes.push(`replaced by ${t.supersededBy}`);
  if (t.suspended) notes.push("paused");
  if (t.inGracePeriod) notes.push("grace period");
  else if (t.inBillingRetry) notes.push("billing retry");
  if (t.expiresAt) notes.push(t.expiresAt < new Date() ? "expired" : t.willRenew ? "renews" : "will not renew");
  if (t.familyShared) notes.push("family sharing");
  if (t.acknowledgement === "FAILED") notes.push(`acknowledgement failed: ${t.acknowledgementError}`);
  const environment = environmentName(t.store, t.environment);
  if (environment) notes.push(environment);
  return notes.join(", ") || "—";
}

// A purchase's environment in its store's own words, as the README and entctl say it; nothing for real money. The
// API has one value, SANDBOX, for Apple's sandbox, a Google Play license tester's purchase and Stripe's test mode.
function environmentName(store, environment) {
  if (!environment || environment === "PRODUCTION") return "";
  if (environment === "SANDBOX") return store === "PLAY_STORE" ? "test purchase" : store === "WEB" ? "test mode" : "sandbox";
  return { XCODE: "Xcode", LOCAL_TESTING: "local testing" }[environment] ?? environment.toLowerCase();
}

function renderDetails(details) {
  $("aliases").replaceChildren(...(details.aliases.length
    ? details.aliases.map((alias) => el("li", {}, alias)) : [el("li", { class: "hint" }, "none")]));
  const purchases = details.transactions.map((t) => el("tr", {},
    el("td", {}, storeNames[t.store] ?? t.store), el("td", {}, t.productId),
    el("td", { class: "mono" }, t.originalTransactionId), el("td", {}, when(t.expiresAt)), el("td", {}, renewal(t))));
  $("transactions").tBodies[0].replaceChildren(...(purchases.length ? purchases : [none(5)]));
  const now = new Date();
  const grants = details.grants.map((g) => {
    const live = !g.revokedAt && (!g.expiresAt || g.expiresAt > now);
    const reason = g.revokedAt ? `${g.reason} — revoked ${when(g.revokedAt)}: ${g.revocationReason}` : g.reason;
    const action = el("td", {});
    if (live && caller.canWrite) {
      const input = el("input", { placeholder: "Why revoke?", maxLength: 1024, class: "revoke-reason" });
      const button = el("button", { type: "button", class: "danger revoke" }, "Revoke");
      button.addEventListener("click", () => revoke(g.grantId, input.value.trim(), button));
      action.append(input, button);
    }
    return el("tr", { "data-grant-id": g.grantId, "data-live": live ? "yes" : "no" },
      el("td", {}, g.entitlementId), el("td", {}, g.expiresAt ? when(g.expiresAt) : "forever"),
      el("td", {}, reason), action);
  });
  $("grants").tBodies[0].replaceChildren(...(grants.length ? grants : [none(4)]));
  const attributes = details.attributes.map((a) => {
    const action = el("td", {});
    if (caller.canWrite) {
      const button = el("button", { type: "button", class: "quiet unset-attribute" }, "Remove");
      button.addEventListener("click", () => unsetAttribute(a.key, button));
      action.append(button);
    }
    return el("tr", { "data-attribute": a.key },
      el("td", { class: "mono" }, a.key), el("td", {}, a.value), el("td", {}, when(a.updatedAt)), action);
  });
  $("attributes").tBodies[0].replaceChildren(...(attributes.length ? attributes : [none(4)]));
  const signatures = details.offerSignatures.map((s) => el("tr", { "data-nonce": s.nonce },
    el("td", {}, when(s.signedAt)), el("td", {}, s.offerId || "introductory eligibility"), el("td", {}, s.productId),
    el("td", { class: "mono" }, s.redeemedTransactionId ? `${s.redeemedTransactionId} (${when(s.redeemedAt)})` : "—")));
  $("offer-signatures").tBodies[0].replaceChildren(...(signatures.length ? signatures : [none(4)]));
}

function eventItem(e) {
  const meta = [`v${e.version}`, when(e.occurredAt), e.cause, e.change];
  if (e.keyName) meta.push(`key ${e.keyName}`);
  const detail = [e.reason];
  if (e.related) detail.push(`with ${e.related}`);
  detail.push(e.entitlements.length ? `→ ${e.entitlements.join(", ")}` : "→ no entitlements");
  return el("li", { class: e.change === "STATUS_CHANGED" ? "status-changed" : "" },
    el("span", { class: "meta" }, meta.join(" · ")), detail.join(" "),
    e.reference ? el("span", { class: "meta" }, e.reference) : "");
}

async function loadEvents(more = false) {
  const events = await call("ListCustomerEvents", admin.eventsRequest(page.appUserId, more ? page.nextEvents : ""),
    admin.eventPage);
  page.nextEvents = events.nextPageToken;
  const items = events.events.map(eventItem);
  if (more) $("events").append(...items); else $("events").replaceChildren(...items);
  $("more-events").hidden = !events.nextPageToken;
}

async function loadDeliveries() {
  const { deliveries } = await call("ListWebhookDeliveries", admin.deliveriesRequest(page.appUserId), admin.deliveryPage);
  $("deliveries").tBodies[0].replaceChildren(...deliveries.map((d) => {
    const answer = d.lastStatus ? `HTTP ${d.lastStatus}` : d.lastError || "—";
    const action = el("td", {});
    if (caller.canWrite && (d.state === "FAILED" || d.state === "DELIVERED")) {
      const button = el("button", { type: "button", class: "quiet redeliver" }, "Redeliver");
      button.addEventListener("click", () => redeliver(d.id, button));
      action.append(button);
    }
    return el("tr", { "data-delivery-id": String(d.id), "data-state": d.state },
      el("td", {}, when(d.createdAt)), el("td", {}, d.type), el("td", {}, d.endpointId),
      el("td", {}, `${d.state.toLowerCase()} (${d.attempts} attempt${d.attempts === 1 ? "" : "s"})`),
      el("td", {}, answer), action);
  }));
  if (!deliveries.length) $("deliveries").tBodies[0].replaceChildren(none(6));
}

async function load() {
  const details = await call("GetCustomer", admin.getCustomerRequest(page.appUserId), admin.customer);
  page.appUserId = details.status.appUserId;
  $("customer-id").textContent = page.appUserId;
  renderStatus(details.status);
  renderDetails(details);
  await Promise.all([loadEvents(), loadDeliveries()]);
}

function stopStream() {
  page?.stream?.abort();
  document.body.dataset.live = "no";
}

// The live status: StreamStatus from the version shown, again after a pause when it ends.
async function watch(current) {
  const live = $("live");
  while (page === current) {
    current.stream = new AbortController();
    try {
      await client.serverStream("/entitlements.v1.EntitlementService/StreamStatus",
        admin.streamStatusRequest(current.appUserId), {
          signal: current.stream.signal,
          onMessage: (message) => {
            const event = admin.statusEvent(message);
            if (event.kind === "HEARTBEAT" || page !== current) return;
            live.textContent = "live";
            live.className = "badge live";
            document.body.dataset.live = "yes";
            renderStatus(event.customer);
            if (event.kind !== "SNAPSHOT") load().catch(failed);
          },
        });
    } catch (error) {
      if (current.stream.signal.aborted || page !== current) return;
      if (error?.code === "unauthenticated" || error?.code === "permission_denied") { failed(error); return; }
    }
    live.textContent = "reconnecting";
    live.className = "badge";
    document.body.dataset.live = "no";
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
}

async function openCustomer(appUserId) {
  stopStream();
  page = { appUserId, nextEvents: "" };
  $("delete-confirm").value = "";
  $("delete-button").disabled = true;
  show("customer");
  $("customer-id").textContent = appUserId;
  $("live").textContent = "connecting";
  $("live").className = "badge";
  try {
    await load();
    watch(page);
  } catch (error) {
    if (error?.code === "not_found") say(`No customer has the app user ID ${appUserId}.`, { error: true });
    else failed(error);
  }
}

$("more-events").addEventListener("click", () => loadEvents(true).catch(failed));

$("grant-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const button = $("grant-button");
  button.disabled = true;
  try {
    const days = Number($("grant-days").value);
    await client.unary(admin.Service + "GrantEntitlement", admin.grantRequest(
      page.appUserId, $("grant-entitlement").value, days, $("grant-reason").value.trim(), crypto.randomUUID()));
    $("grant-reason").value = "";
    say(`Granted ${$("grant-entitlement").value} for ${counted(days, "day")}.`);
    await load();
  } catch (error) { failed(error); } finally { button.disabled = false; }
});

$("attribute-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const button = $("attribute-button");
  button.disabled = true;
  try {
    const key = $("attribute-key").value.trim();
    await client.unary(admin.Service + "SetCustomerAttributes",
      admin.setAttributeRequest(page.appUserId, key, $("attribute-value").value.trim()));
    $("attribute-key").value = "";
    $("attribute-value").value = "";
    say(`Set ${key}.`);
    await load();
  } catch (error) { failed(error); } finally { button.disabled = false; }
});

// The export, saved as a file: everything stored about the customer (README, "Exporting a customer"), in the
// tenant's audit log under the signed-in key.
$("export").addEventListener("click", async () => {
  const button = $("export");
  button.disabled = true;
  try {
    const parts = [];
    await client.serverStream(admin.Service + "ExportCustomer", admin.exportRequest(page.appUserId),
      { onMessage: (chunk) => parts.push(admin.exportChunk(chunk)) });
    const file = new Blob(parts, { type: "application/json" });
    const name = `customer-${page.appUserId.replace(/[^A-Za-z0-9._-]/g, "_")}.json`;
    el("a", { href: URL.createObjectURL(file), download: name }).click();
    document.body.dataset.exported = name;
    say(`Exported ${page.appUserId} (${file.size} bytes) to ${name}; the export is in the audit log.`);
  } catch (error) { failed(error); } finally { button.disabled = false; }
});

// The erasure, once the app user ID is typed again exactly (the server checks it too).
$("delete-confirm").addEventListener("input", () => {
  $("delete-button").disabled = $("delete-confirm").value !== page.appUserId;
});
$("delete-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const button = $("delete-button");
  button.disabled = true;
  const appUserId = page.appUserId;
  try {
    await client.unary(admin.Service + "DeleteCustomer", admin.deleteRequest(appUserId, $("delete-confirm").value));
    // Home without a hashchange, whose handler would clear the message.
    history.pushState(null, "", "#/");
    route();
    say(`Deleted ${appUserId} and everything that identified them.`);
  } catch (error) { failed(error); button.disabled = false; }
});

async function unsetAttribute(key, button) {
  button.disabled = true;
  try {
    await client.unary(admin.Service + "SetCustomerAttributes", admin.unsetAttributeRequest(page.appUserId, key));
    say(`Removed ${key}.`);
    await load();
  } catch (error) { failed(error); button.disabled = false; }
}

async function revoke(grantId, reason, button) {
  button.disabled = true;
  try {
    await client.unary(admin.Service + "RevokeGrant", admin.revokeRequest(grantId, reason));
    say("Grant revoked.");
    await load();
  } catch (error) { failed(error); button.disabled = false; }
}

async function redeliver(deliveryId, button) {
  button.disabled = true;
  try {
    await client.unary(admin.Service + "RedeliverWebhooks", admin.redeliverRequest(deliveryId));
    say("Queued for delivery again.");
    await loadDeliveries();
  } catch (error) { failed(error); button.disabled = false; }
}

// Routing: #/ (search), #/overview (metrics) and #/customer/<app user ID>

function route() {
  if (!client) { show("sign-in"); return; }
  const match = location.hash.match(/^#\/customer\/(.+)$/);
  if (match) { openCustomer(decodeURIComponent(match[1])); return; }
  stopStream();
  page = null;
  if (location.hash === "#/overview") {
    show("overview");
    charts.open();
    return;
  }
  show("home");
  loadCounts();
  loadTrust();
}

window.addEventListener("hashchange", () => { say(""); route(); });

const saved = sessionStorage.getItem(keyStorage);
if (saved) signIn(saved).then(route, () => signOut("Your saved key is no longer accepted; sign in again."));
else route();
