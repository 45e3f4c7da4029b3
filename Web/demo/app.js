// The demo page: a signed-in user's status, live (SyncStatus, then one StreamStatus resumed from the last version
// seen), web purchases through the local Checkout stand-in (opened in a window of its own, so this page keeps its
// stream and unlocks without a reload), and the anonymous flow: buy without an account, get a redemption code,
// redeem it once signed in.

import { GrpcWebClient } from "./grpc-web.js";
import * as pb from "./protobuf.js";

const params = new URLSearchParams(location.search);
// The demo tenant's public key: public knowledge, like everything about the demo tenant.
const client = new GrpcWebClient(location.origin, params.get("key") ?? "pk_demo_public_key_for_local_testing_only");
const checkoutURL = params.get("checkout") ?? "http://127.0.0.1:8092";
const service = "/entitlements.v1.EntitlementService/";
const $ = (id) => document.getElementById(id);

// A number that changes only when the page loads: the browser test reads it to prove there was no reload.
window.demoPageLoad = `${Date.now()}-${Math.random()}`;

let user = localStorage.getItem("demo-user") ?? "";
let stream = null;
let lastVersion = 0n;

function say(text) { $("message").textContent = text; }

function log(line) {
  const item = document.createElement("li");
  item.textContent = `${new Date().toLocaleTimeString()}  ${line}`;
  $("events").prepend(item);
}

function render(customer) {
  if (!customer || customer.version < lastVersion) return;
  lastVersion = customer.version;
  $("state").textContent = customer.active ? "ACTIVE" : "INACTIVE";
  $("state").className = customer.active ? "active" : "inactive";
  $("version").textContent = `version ${customer.version}`;
  const list = $("entitlements");
  list.replaceChildren(...customer.entitlements.map((e) => {
    const item = document.createElement("li");
    item.dataset.entitlement = e.id;
    const until = e.expiresAt ? `until ${e.expiresAt.toISOString()}` : "lifetime";
    item.textContent = `${e.id}  ${until}  (${e.source}${e.willRenew ? ", renews" : ""})`;
    return item;
  }));
  document.body.dataset.entitlements = customer.entitlements.map((e) => e.id).join(" ");
}

function showSignedIn() {
  $("signed-in").hidden = !user;
  $("signed-out").hidden = !!user;
  $("who").textContent = user;
  $("buy-pro").disabled = !user;
  $("redeem").disabled = !user || !$("code").value;
}

async function signIn(appUserId) {
  user = appUserId;
  localStorage.setItem("demo-user", user);
  lastVersion = 0n;
  showSignedIn();
  const identified = await client.unary(service + "Identify", pb.identifyRequest(user), { timeoutMs: 10000 });
  render(pb.customerOf(identified));
  const synced = await client.unary(service + "SyncStatus", pb.syncStatusRequest(user), { timeoutMs: 10000 });
  render(pb.customerOf(synced));
  watch();
}

function signOut() {
  stream?.abort();
  stream = null;
  user = "";
  localStorage.removeItem("demo-user");
  lastVersion = 0n;
  $("entitlements").replaceChildren();
  $("state").textContent = "";
  $("version").textContent = "";
  document.body.dataset.entitlements = "";
  showSignedIn();
}

// One status stream per page (browsers give a site six HTTP/1.1 connections). It starts with a snapshot; after a
// failure it resumes from the last version seen, waiting longer each time.
async function watch(delay = 0) {
  stream?.abort();
  const controller = new AbortController();
  stream = controller;
  const watching = user;
  try {
    const after = delay === 0 ? 0n : lastVersion;
    await client.call(service + "StreamStatus", pb.streamStatusRequest(watching, after), {
      signal: controller.signal,
      onMessage: (bytes) => {
        const event = pb.statusEvent(bytes);
        if (event.kind === "HEARTBEAT") return;
        render(event.customer);
        log(`${event.kind}  ${event.reason}`);
        document.body.dataset.lastEvent = event.kind;
      },
    });
  } catch (error) {
    if (controller.signal.aborted) return;
    log(`stream ended: ${error.message}; reconnecting`);
  }
  if (stream !== controller || user !== watching) return;
  const next = Math.min(Math.max(delay * 2, 1000), 30000);
  setTimeout(() => { if (stream === controller) watch(next); }, next);
}

function openCheckout(price, buyer) {
  const query = new URLSearchParams({
    price, success_url: `${location.origin}/demo/thanks.html`, cancel_url: `${location.origin}/demo/thanks.html?canceled=1`,
  });
  if (buyer) query.set("client_reference_id", buyer);
  window.open(`${checkoutURL}/checkout?${query}`, "checkout", "width=520,height=640");
}

async function redeem() {
  try {
    const response = await client.unary(
      service + "Purchase", pb.redeemRequest(user, $("code").value.trim()), { timeoutMs: 10000 });
    render(pb.customerOf(response));
    say("Redeemed: the purchase is yours.");
    $("code").value = "";
    $("redeem").disabled = true;
  } catch (error) {
    say(`Not redeemed: ${error.grpcMessage ?? error.message}`);
  }
}

// thanks.html (the checkout's success page, same origin) hands over what the checkout made.
window.addEventListener("message", (event) => {
  if (event.origin !== location.origin || typeof event.data !== "object") return;
  if (event.data.redemptionCode) {
    $("code").value = event.data.redemptionCode;
    $("redeem").disabled = !user;
    say(`Paid. Your redemption code: ${event.data.redemptionCode}`);
  } else if (event.data.sessionId) {
    say("Paid. Your status updates as soon as Stripe's webhook is in.");
  }
});

$("sign-in-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const id = $("user").value.trim();
  if (id) signIn(id).catch((error) => say(`Sign-in failed: ${error.grpcMessage ?? error.message}`));
});
$("sign-out").addEventListener("click", signOut);
$("buy-pro").addEventListener("click", () => openCheckout("price_demo_pro_monthly", user));
$("buy-anonymous").addEventListener("click", () => openCheckout("price_demo_premium_lifetime", ""));
$("redeem").addEventListener("click", redeem);
$("code").addEventListener("input", () => { $("redeem").disabled = !user || !$("code").value; });

showSignedIn();
if (user) signIn(user).catch((error) => say(`Sign-in failed: ${error.grpcMessage ?? error.message}`));
