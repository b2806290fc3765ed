// A consumer's code against openapi-fetch and the types openapi-typescript generates from the
// example's document. tests/test_generated_clients.py generates ./schema.d.ts, checks this file
// with `tsc --noEmit`, compiles it and runs it under node against the live example service, for
// each served version (the paths carry the version: "/v2/" is replaced for the other ones).
// Environment: SERVICE_URL; ODD_ORDER_ID and ODD_INVOICE_ID, rows whose status the document does
// not list. The lines between the previous_cursor markers are left out when the document's list
// envelope has no previous_cursor. ./openapi.json, the document the types were generated from,
// gives what they do not keep: x-idempotency.
import { readFileSync } from "node:fs";
import createClient, { type Middleware } from "openapi-fetch";
import type { components, paths } from "./schema.js";

type Problem = components["schemas"]["Problem"];
type Invoice = components["schemas"]["Invoice"];

function check(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

function env(name: string): string {
  const value = process.env[name];
  check(value !== undefined && value !== "", `${name} is not set`);
  return value;
}

function expectProblem(error: Problem | undefined, response: Response, status: number, slug: string): Problem {
  check(error !== undefined && response.status === status, `expected ${status} ${slug}, got ${response.status}`);
  check(error.type.endsWith(`/problems/${slug}`) && error.status === status && error.trace_id !== "",
        `expected the problem ${slug}, got ${JSON.stringify(error)}`);
  return error;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const newKey = () => crypto.randomUUID();

type Idempotency = { header: string; required: boolean; retentionSeconds: number; replayHeaders: string[] };
type Document = { paths: Record<string, Record<string, { "x-idempotency"?: Idempotency }>> };

// A new key on each operation the document marks with x-idempotency, unless the caller set one.
function sendKeys(document: Document, sent: Request[]): Middleware {
  return {
    onRequest({ request, schemaPath }) {
      const extension = document.paths[schemaPath]?.[request.method.toLowerCase()]?.["x-idempotency"];
      if (extension !== undefined && !request.headers.has(extension.header)) {
        request.headers.set(extension.header, newKey());
      }
      sent.push(request);
      return request;
    },
  };
}

async function main(): Promise<void> {
  const client = createClient<paths>({
    baseUrl: env("SERVICE_URL"),
    headers: { "X-Client-ID": `typescript-${newKey().slice(0, 8)}` },
  });

  // A user and three invoices.
  const user = await client.POST("/v2/users", {
    params: { header: { "Idempotency-Key": newKey() } },
    body: { email: `${newKey()}@example.com`, name: "Ada" },
  });
  check(user.data !== undefined && user.response.status === 201, `user: ${user.response.status}`);
  const created: Invoice[] = [];
  for (let index = 0; index < 3; index++) {
    const invoice = await client.POST("/v2/invoices", {
      params: { header: { "Idempotency-Key": newKey() } },
      body: { user_id: user.data.id, amount_due: 100, currency: "eur" },
    });
    check(invoice.data !== undefined, `invoice: ${invoice.response.status}`);
    created.push(invoice.data);
  }
  const status: string = created[0].status; // a known value or any other string
  check(status === "open", `status ${status}`);

  // Pay with a key, replay it, reuse it for another payment.
  const key = newKey();
  const payments = "/v2/invoices/{invoice_id}/payments" as const;
  const pay = (invoiceId: string, amount: number, idempotencyKey: string) => client.POST(payments, {
    params: { path: { invoice_id: invoiceId }, header: { "Idempotency-Key": idempotencyKey } },
    body: { amount, currency: "eur" },
  });
  const first = await pay(created[0].id, 40, key);
  check(first.data !== undefined && first.response.status === 201, `payment: ${first.response.status}`);
  check(first.response.headers.get("Idempotent-Replayed") === "false", "first execution");
  const again = await pay(created[0].id, 40, key);
  check(again.data?.payment_id === first.data.payment_id, "the replay answers the same payment");
  check(again.response.headers.get("Idempotent-Replayed") === "true", "replayed");
  const reused = await pay(created[0].id, 41, key);
  expectProblem(reused.error, reused.response, 422, "idempotency-key-reused");

  // Keys where x-idempotency says, as a generator that reads it sends them; and only there.
  const document = JSON.parse(readFileSync("openapi.json", "utf8")) as Document;
  const extension = document.paths["/v2/users"]?.post?.["x-idempotency"];
  check(extension !== undefined, "x-idempotency on creating a user");
  const sent: Request[] = [];
  const keying = createClient<paths>({
    baseUrl: env("SERVICE_URL"),
    headers: { "X-Client-ID": `typescript-${newKey().slice(0, 8)}` },
  });
  keying.use(sendKeys(document, sent));
  const userBody = { email: `${newKey()}@example.com`, name: "Bo" };
  const made = await keying.POST("/v2/users", { body: userBody });
  check(made.response.status === 201, `keyed user: ${made.response.status}`);
  check(made.response.headers.get(extension.replayHeaders[0]) === "false", "a first execution");
  check(Number(made.response.headers.get("Idempotency-Retention")) === extension.retentionSeconds, "retention");
  const userKey = sent[0].headers.get(extension.header);
  check(userKey !== null, "a key sent where x-idempotency says");
  // A retry of the same request, with its key.
  const retried = await keying.POST("/v2/users", { params: { header: { "Idempotency-Key": userKey } }, body: userBody });
  check(retried.response.headers.get("Idempotent-Replayed") === "true", "the retry is replayed");
  check(extension.replayHeaders.every((name) => retried.response.headers.has(name)), "replay headers");
  const listed = await keying.GET("/v2/invoices", { params: { query: { user_id: user.data.id } } });
  check(listed.response.status === 200, `list: ${listed.response.status}`);
  check(JSON.stringify(sent.map((request) => request.headers.get(extension.header)))
        === JSON.stringify([userKey, userKey, null]), "a key on keyed operations only");

  // Walk the user's invoices forward, one per page: newest first.
  type Page = components["schemas"]["PaginatedInvoiceList"];
  const pages: Page[] = [];
  let cursor: string | null = null;
  do {
    const query: { user_id: string; limit: number; cursor?: string } = { user_id: user.data.id, limit: 1 };
    if (cursor !== null) query.cursor = cursor;
    const page = await client.GET("/v2/invoices", { params: { query } });
    check(page.data !== undefined, `list: ${page.response.status}`);
    pages.push(page.data);
    cursor = page.data.pagination.next_cursor;
    check(page.data.pagination.has_next === (cursor !== null), "has_next says whether next_cursor is set");
  } while (cursor !== null);
  const forward = pages.flatMap((page) => page.data.map((invoice) => invoice.id));
  check(JSON.stringify(forward) === JSON.stringify(created.map((invoice) => invoice.id).reverse()),
        `forward walk ${forward}`);
  // >>> previous_cursor
  // And back from the last page: the same items, in the same order.
  let backward: string[] = [];
  let previous = pages[pages.length - 1].pagination.previous_cursor;
  while (previous !== null) {
    const page = await client.GET("/v2/invoices", { params: { query: { user_id: user.data.id, limit: 1, cursor: previous } } });
    check(page.data !== undefined, `list back: ${page.response.status}`);
    backward = [...page.data.data.map((invoice) => invoice.id), ...backward];
    previous = page.data.pagination.previous_cursor;
    check(page.data.pagination.has_previous === (previous !== null), "has_previous says whether previous_cursor is set");
  }
  check(JSON.stringify(backward) === JSON.stringify(forward.slice(0, -1)), `backward walk ${backward}`);
  // <<< previous_cursor

  // A 400 names the parameter at fault in its errors.
  const bad = await client.GET("/v2/invoices", { params: { query: { limit: 0 } } });
  const problem = expectProblem(bad.error, bad.response, 400, "invalid-parameters");
  check(problem.errors?.[0]?.parameter === "limit", `errors ${JSON.stringify(problem.errors)}`);

  // A key still running: 409 with Retry-After (the gateway takes PAYMENT_GATEWAY_DELAY_MS).
  const busyKey = newKey();
  const running = pay(created[1].id, 10, busyKey);
  await sleep(300);
  const busy = await pay(created[1].id, 10, busyKey);
  expectProblem(busy.error, busy.response, 409, "idempotency-key-in-use");
  check(Number(busy.response.headers.get("Retry-After")) >= 1, "Retry-After");
  check((await running).response.status === 201, "the first request completes");

  // Statuses the document does not list parse, and are kept as they are.
  const order = await client.GET("/v2/orders/{id}", { params: { path: { id: env("ODD_ORDER_ID") } } });
  check(order.data?.status === "returned", `order status ${order.data?.status}`);
  const odd = await client.GET("/v2/invoices/{id}", { params: { path: { id: env("ODD_INVOICE_ID") } } });
  check(odd.data?.status === "refunded", `invoice status ${odd.data?.status}`);
  console.log("typescript flow: ok");
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
