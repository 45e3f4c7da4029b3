// The demo page, on the web SDK (Web/sdk): the user's status, live (the SDK's one StreamStatus over Connect,
// resumed from the last version seen), web purchases through the local Checkout stand-in (opened in a window of its
// own, so this page keeps its stream and unlocks without a reload), and the anonymous flow: buy without an account,
// get a redemption code, redeem it once signed in. Signed out is the SDK's anonymous user; signing in merges it.

import { Entitlements } from "./entitlements.js";

const params = new URLSearchParams(location.search);
const checkoutURL = params.get("checkout") ?? "http://127.0.0.1:8092";
const $ = (id) => document.getElementById(id);

// A number that changes only when the page loads: the browser test reads it to prove there was no reload.
window.demoPageLoad = `${Date.now()}-${Math.random()}`;

function say(text) { $("message").textContent = text; }

function log(line) {
  const item = document.createElement("li");
  item.textContent = `${new Date().toLocaleTimeString()}  ${line}`;
  $("events").prepend(item);
}

const entitlements = new Entitlements({
  baseURL: location.origin,
  // The demo tenant's public key: public knowledge, like everything about the demo tenant.
  publicKey: params.get("key") ?? "pk_demo_public_key_for_local_testing_only",
  log: (level, message) => { if (level !== "debug") log(message); },
});

function render(snapshot) {
  const signedIn = !entitlements.isAnonymous;
  $("signed-in").hidden = !signedIn;
  $("signed-out").hidden = signedIn;
  $("who").textContent = signedIn ? entitlements.appUserId : "";
  $("buy-pro").disabled = !signedIn;
  $("redeem").disabled = !signedIn || !$("code").value;
  $("state").textContent = snapshot.state.toUpperCase();
  $("state").className = snapshot.state;
  $("version").textContent = `version ${snapshot.version} (${snapshot.origin})`;
  $("entitlements").replaceChildren(...snapshot.entitlements.map((e) => {
    const item = document.createElement("li");
    item.dataset.entitlement = e.id;
    const until = e.expiresAt ? `until ${e.expiresAt.toISOString()}` : "lifetime";
    item.textContent = `${e.id}  ${until}  (${e.source.toUpperCase()}${e.willRenew ? ", renews" : ""})`;
    return item;
  }));
  document.body.dataset.entitlements = snapshot.entitlements.map((e) => e.id).sort().join(" ");
  document.body.dataset.origin = snapshot.origin;
  document.body.dataset.user = entitlements.appUserId;
}

entitlements.onChange((snapshot, change) => {
  render(snapshot);
  if (change) log(`${change === "entitlements" ? "entitlements changed" : "details changed"}  version ${snapshot.version}`);
});
entitlements.start();

function openCheckout(price) {
  const query = new URLSearchParams({
    price, success_url: `${location.origin}/demo/thanks.html`, cancel_url: `${location.origin}/demo/thanks.html?canceled=1`,
  });
  // Signed in: the checkout names the user (client_reference_id); anonymous: it ends with a redemption code.
  window.open(entitlements.checkoutURL(`${checkoutURL}/checkout?${query}`), "checkout", "width=520,height=640");
}

async function redeem() {
  try {
    await entitlements.redeemWebPurchase($("code").value);
    say("Redeemed: the purchase is yours.");
    $("code").value = "";
    $("redeem").disabled = true;
  } catch (error) {
    say(`Not redeemed: ${error.message}`);
  }
}

// thanks.html (the checkout's success page, same origin) hands over what the checkout made.
window.addEventListener("message", (event) => {
  if (event.origin !== location.origin || typeof event.data !== "object") return;
  if (event.data.redemptionCode) {
    $("code").value = event.data.redemptionCode;
    $("redeem").disabled = entitlements.isAnonymous;
    say(`Paid. Your redemption code: ${event.data.redemptionCode}`);
  } else if (event.data.sessionId) {
    say("Paid. Your status updates as soon as Stripe's webhook is in.");
  }
});

$("sign-in-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const id = $("user").value.trim();
  if (id) entitlements.identify(id).catch((error) => say(`Sign-in failed: ${error.message}`));
});
$("sign-out").addEventListener("click", () => {
  entitlements.logOut().catch((error) => say(`Sign-out failed: ${error.message}`));
});
$("buy-pro").addEventListener("click", () => openCheckout("price_demo_pro_monthly"));
$("buy-anonymous").addEventListener("click", () => openCheckout("price_demo_premium_lifetime"));
$("redeem").addEventListener("click", redeem);
$("code").addEventListener("input", () => { $("redeem").disabled = entitlements.isAnonymous || !$("code").value; });
