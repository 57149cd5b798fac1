/** Entry point of the web client: read the pairing, then start the app against this page's own server. */
import { App } from "./app.ts";
import { takePairing } from "./pairing.ts";

const pairing = takePairing(location, history, sessionStorage);
const scheme = location.protocol === "https:" ? "wss:" : "ws:";
if (pairing.token === undefined) {
  document.getElementById("connection")!.textContent =
    "Not paired: open the link `knightcode web` printed (it ends in #token=…)";
} else {
  new App(`${scheme}//${location.host}/`, pairing.token, pairing.cwd).start();
}
