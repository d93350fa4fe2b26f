package web

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

var pageScreenshot = flag.String("screenshot", "", "TestPageInChromium saves a screenshot of the page here (relative to the module root), after a minute of load for the charts: go test ./engine/web -run TestPageInChromium -screenshot docs/img/live-page.png")

// chromiumPath is Debian's chromium (scripts/test.sh installs it).
const chromiumPath = "/usr/bin/chromium"

// TestPageInChromium loads the live page in a real headless Chromium over
// a real engine: the graph shows the test's source, table, streaming
// tables and sink as nodes with the edges between them and their states
// (a table that fails is drawn failed), and the input rows and rate of a
// streaming table change on the page as the test inserts rows.
func TestPageInChromium(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "landing"), 0o755); err != nil {
		t.Fatal(err)
	}
	s := startPageTestServer(t, root)
	s.exec(t,
		"CREATE TABLE orders (id bigint, region text, amount numeric(10,2), ts timestamptz, WATERMARK FOR ts AS ts - INTERVAL '5 seconds')",
		"CREATE STREAMING TABLE order_totals AS SELECT region, count(*) AS n, sum(amount) AS total FROM STREAM orders GROUP BY region",
		"CREATE STREAMING TABLE orders_per_minute AS SELECT window_start, count(*) AS n FROM TUMBLE(orders, ts, INTERVAL '1 minute') GROUP BY window_start EMIT ON WINDOW CLOSE",
		"CREATE STREAMING TABLE big_orders AS SELECT id, region, amount FROM STREAM orders WHERE amount >= 200",
		"CREATE STREAMING TABLE broken AS SELECT id, 1 / (amount - amount) AS x FROM STREAM orders",
		"CREATE SOURCE clicks (page text, ts timestamptz) WITH (connector = 'files', path = 'landing', format = 'json')",
		"CREATE STREAMING TABLE clicks_per_page AS SELECT page, count(*) AS n FROM STREAM clicks GROUP BY page",
		fmt.Sprintf("CREATE SINK big_orders_out FROM big_orders WITH (connector = 'files', path = '%s', format = 'json')", filepath.Join(root, "out")))
	writeLanding(t, root, "a.json", `{"page": "/", "ts": "2026-01-01T00:00:00Z"}`+"\n"+`{"page": "/cart", "ts": "2026-01-01T00:00:01Z"}`+"\n")
	s.insertOrders(t, 1, 100)

	ctx := chromium(t)
	// The browser starts with the first action; only then can its console
	// be followed.
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	var consoleMu sync.Mutex
	var exceptions []string
	go func() {
		for m, err := range chromedp.Console(ctx) {
			if err != nil {
				return
			}
			if m.IsException() {
				consoleMu.Lock()
				exceptions = append(exceptions, m.String())
				consoleMu.Unlock()
			}
		}
	}()
	if err := chromedp.Do(ctx, chromedp.Navigate(s.http.URL+"/")); err != nil {
		t.Fatalf("load the page: %v", err)
	}
	waitPage := func(what, cond string) {
		t.Helper()
		within := 30 * time.Second
		if strings.HasPrefix(what, "a minute") {
			within = 3 * time.Minute
		}
		deadline := time.Now().Add(within)
		var err error
		for {
			_, err = chromedp.Run(ctx, chromedp.Poll[bool](cond, chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(time.Until(deadline))))
			// Just after a navigation the poll may go to the document that
			// was replaced (its execution context is gone): poll again.
			if err == nil || !strings.Contains(err.Error(), "Cannot find context") || time.Now().After(deadline) {
				break
			}
		}
		if err != nil {
			figures, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("conn").textContent + "\n" + document.getElementById("numbers").innerText`))
			t.Fatalf("%s: %v\npage:\n%s", what, err, figures)
		}
	}

	// The graph: every node of the test, of its kind, and the edges.
	for _, n := range []struct{ name, kind string }{
		{"public.orders", "table"}, {"public.clicks", "source"},
		{"public.order_totals", "stream"}, {"public.orders_per_minute", "stream"}, {"public.big_orders", "stream"},
		{"public.broken", "stream"}, {"public.clicks_per_page", "stream"}, {"public.big_orders_out", "sink"},
	} {
		waitPage("node "+n.name, fmt.Sprintf(`!!document.querySelector('#graph g.node[data-node=%q][data-kind=%q]')`, n.name, n.kind))
	}
	for _, e := range [][2]string{
		{"rel:public.orders", "rel:public.order_totals"}, {"rel:public.orders", "rel:public.big_orders"},
		{"rel:public.clicks", "rel:public.clicks_per_page"}, {"rel:public.big_orders", "sink:public.big_orders_out"},
	} {
		waitPage("edge "+e[0]+" → "+e[1], fmt.Sprintf(`!!document.querySelector('#graph path.edge[data-from=%q][data-to=%q]')`, e[0], e[1]))
	}
	// States: the failing table is drawn failed (red), with its error on
	// its card; a healthy one running or idle.
	waitPage("broken drawn failed", `document.querySelector('#graph g.node[data-node="public.broken"]').dataset.status === "failed"`)
	waitPage("broken's error shown", `/division by zero/.test(document.querySelector('#card-public_broken .error').textContent)`)
	waitPage("order_totals drawn running or idle", `["running", "idle"].includes(document.querySelector('#graph g.node[data-node="public.order_totals"]').dataset.status)`)
	waitPage("the seven answers", `document.querySelectorAll('#card-public_order_totals .answers dt').length === 7`)
	waitPage("the files source read", `document.querySelector('tr[data-id="public.clicks_per_page"] [data-field="inputRows"]').textContent === "2"`)

	checkQualityGate(t, s, root, waitPage)

	// The figures move as rows arrive: input rows in the table view and on
	// the card, and the input rate.
	cell := func(field string) string {
		return fmt.Sprintf(`document.querySelector('tr[data-id="public.order_totals"] [data-field=%q]').textContent`, field)
	}
	waitPage("100 input rows", cell("inputRows")+` === "100"`)
	s.insertOrders(t, 101, 400)
	waitPage("500 input rows", cell("inputRows")+` === "500"`)
	waitPage("500 on the card", `document.querySelector('#card-public_order_totals [data-field="inputRows"]').textContent === "500"`)
	waitPage("an input rate", `parseFloat(`+cell("inputRate")+`) > 0`)
	waitPage("the rate chart drawn", `document.querySelector('#card-public_order_totals .line-in').getAttribute('points').split(' ').length >= 2`)
	waitPage("a watermark lag", `/s$/.test(`+cell("watermarkLag")+`)`)
	waitPage("the live status", `document.getElementById("conn").dataset.state === "live"`)

	// The stream breaks (the server drops every connection): the page says
	// so, reconnects by itself and goes on receiving snapshots.
	seq, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("seq").dataset.seq`))
	if err != nil {
		t.Fatal(err)
	}
	s.http.CloseClientConnections()
	waitPage("reconnecting shown", `document.getElementById("conn").dataset.state === "retrying"`)
	waitPage("live again", `document.getElementById("conn").dataset.state === "live" && +document.getElementById("seq").dataset.seq > `+seq)

	if *pageScreenshot != "" {
		screenshot(t, ctx, s, waitPage)
	}
	checkEveryPart(t, ctx)

	consoleMu.Lock()
	defer consoleMu.Unlock()
	if len(exceptions) > 0 {
		t.Errorf("the page threw:\n%s", strings.Join(exceptions, "\n"))
	}
}

// checkQualityGate builds the README's quality gate (bronze → silver with
// warn, DROP ROW and FAIL UPDATE expectations → silver_quarantine) with a
// files sink on silver, puts in rows of which it knows the bad ones, and
// waits for the page to show the real counts: each expectation's passed
// and failed rows, the rejected (dropped) rows, the batch history with its
// phases, the server's figures; then it breaks the sink and waits for the
// page to draw it failed.
func checkQualityGate(t *testing.T, s *pageTestServer, root string, waitPage func(what, cond string)) {
	t.Helper()
	out := filepath.Join(root, "silver_out")
	s.exec(t, qualityGateSQL...)
	s.exec(t, fmt.Sprintf("CREATE SINK silver_out FROM silver WITH (connector = 'files', path = '%s', format = 'json')", out))
	const n = 300
	nullIDs, badAmounts, err := insertBronze(context.Background(), s.sql, 1, n)
	if err != nil {
		t.Fatalf("insert into bronze: %v", err)
	}
	card := `document.querySelector('#card-public_silver')`
	waitPage("silver's card", `!!`+card)
	waitPage("the graph's edge bronze → silver", `!!document.querySelector('#graph path.edge[data-from="rel:public.bronze"][data-to="rel:public.silver"]')`)
	rows := `[...` + card + `.querySelectorAll("section:first-child tbody tr")].map((r) => r.innerText.replaceAll("\t", " ")).join("; ")`
	want := fmt.Sprintf("has_id warn %d %d; pos_amount drop %d %d; known_type fail %d 0", n-nullIDs, nullIDs, n-badAmounts, badAmounts, n)
	waitPage("the expectations' counts "+want, rows+` === `+fmt.Sprintf("%q", want))
	waitPage(fmt.Sprintf("%d rejected rows", badAmounts), card+`.querySelector('[data-field="rejected"]').textContent === "`+fmt.Sprint(badAmounts)+`"`)
	waitPage(fmt.Sprintf("%d warned rows beside", nullIDs), `/`+fmt.Sprint(nullIDs)+` kept with a warning/.test(`+card+`.querySelector('.kpi-rejected .kpi-note').textContent)`)
	waitPage("the rejected rows in the table view", `document.querySelector('tr[data-id="public.silver"] [data-field="rejectedRows"]').textContent === "`+fmt.Sprint(badAmounts)+`"`)
	// The batch history: the epoch that read the rows, its phases timed.
	batches := card + `.querySelectorAll("section:nth-child(2) tbody tr")`
	waitPage("silver's batch history", `[...`+batches+`].some((r) => r.cells[1].textContent === "`+fmt.Sprint(n)+`" && / \/ .* \/ /.test(r.cells[4].textContent))`)
	waitPage("the server's figures", `(() => { const v = [...document.querySelectorAll("#server .tile-value")].map((n) => n.textContent);
		return v.length === 4 && +v[0] >= 1 && +v[1].replace(/,/g, "") > 10; })()`)

	// The sink's folder becomes a file: the sink fails, the page says so.
	waitPage("silver_out drawn running", `document.querySelector('#graph g.node[data-node="public.silver_out"]').dataset.status === "running"`)
	if err := os.RemoveAll(out); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, []byte("not a folder"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := insertBronze(context.Background(), s.sql, n+1, 10); err != nil {
		t.Fatalf("insert into bronze: %v", err)
	}
	waitPage("silver_out drawn failed", `document.querySelector('#graph g.node[data-node="public.silver_out"]').dataset.status === "failed"`)
	waitPage("silver_out's error shown", `/not a directory/.test(document.querySelector('[data-sink="public.silver_out"] .error').textContent)`)
}

// checkEveryPart draws everyPartMonitor's snapshot and reads, before the
// next frame from the stream replaces it, what the page made of the parts a
// running engine leaves empty today: expectation counts, batches, server
// figures, a flow, a paused table, a failed sink.
func checkEveryPart(t *testing.T, ctx context.Context) {
	t.Helper()
	js, err := json.Marshal(newPageSnapshot(1, everyPartMonitor(time.Now())))
	if err != nil {
		t.Fatal(err)
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]string](`(() => {
		const snap = `+string(js)+`;
		snap.seq = +document.getElementById("seq").dataset.seq; // not counted as frames missed
		weirPage.render(snap);
		const card = document.getElementById("card-public_silver_from_landing");
		const text = (sel, root) => { const n = (root || document).querySelector(sel); return n ? n.textContent : "(none)"; };
		return {
			node: document.querySelector('#graph g.node[data-node="public.silver"]').dataset.status,
			sinkNode: document.querySelector('#graph g.node[data-node="public.silver_out"]').dataset.status,
			flow: text("h3 .flow", card),
			rejected: text('[data-field="rejected"]', card),
			late: text('[data-field="late"]', card),
			lag: text('[data-field="lag"]', card),
			backlog: text('[data-field="backlog"]', card) + "; " + text(".kpi-backlog .kpi-note", card),
			expectations: [...card.querySelectorAll("section:first-child tbody tr")].map((r) => r.innerText.replaceAll("	", " ")).join("; "),
			batches: String(card.querySelectorAll("section:nth-child(2) tbody tr").length),
			lastBatch: text('[data-field="epoch"]', card),
			sinkError: text('[data-sink="public.silver_out"] .error'),
			server: [...document.querySelectorAll("#server .tile-value")].map((n) => n.textContent).join(", "),
			rowRejected: text('tr[data-id="public.silver/from_landing"] [data-field="rejectedRows"]'),
		};
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{
		"node": "paused", "sinkNode": "failed", "flow": " · flow from_landing", "rejected": "34", "late": "5", "lag": "90 s",
		"backlog": "30 rows; 3 files, 4.1 kB unread", "expectations": "valid_id drop 1,200 34; positive warn 1,230 4", "batches": "3",
		"lastBatch": "epoch 7 · last batch 1.50 s", "sinkError": "Last error: broker unreachable", "server": "3, 42, 3, 5.2 MB", "rowRejected": "34",
	} {
		if got[k] != want {
			t.Errorf("%s: %q, want %q", k, got[k], want)
		}
	}
}

// screenshot puts a varying load on orders and bronze until the rate chart holds a
// minute of figures, then saves the whole page as PNG.
func screenshot(t *testing.T, ctx context.Context, s *pageTestServer, waitPage func(what, cond string)) {
	done := make(chan struct{})
	loaded := make(chan struct{})
	go func() {
		defer close(loaded)
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		next := 1000
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			n := 20 + (i/10%6)*15 // steps of load, so that the chart has a shape
			if err := s.insertOrdersErr(next, n); err != nil {
				t.Errorf("load: %v", err)
				return
			}
			next += n
			// and on the quality gate, whose expectations count as it goes
			if _, _, err := insertBronze(context.Background(), s.sql, 10000+next, n/2); err != nil {
				t.Errorf("load bronze: %v", err)
				return
			}
		}
	}()
	waitPage("a minute of figures", `document.querySelector('#card-public_order_totals .line-in').getAttribute('points').split(' ').length >= 60`)
	close(done)
	<-loaded
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	path := *pageScreenshot
	if !filepath.IsAbs(path) {
		path = filepath.Join(moduleRoot(t), path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d bytes)", path, len(png))
}

// chromium starts a headless Chromium with a fresh profile, closed when the
// test ends.
func chromium(t *testing.T) context.Context {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Fatalf("%s: %v (apt-get install chromium; scripts/test.sh does)", chromiumPath, err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1440, 1000),
	}
	timeout := 2 * time.Minute
	if *pageScreenshot != "" {
		timeout = 5 * time.Minute
	}
	base, cancelTimeout := context.WithTimeout(context.Background(), timeout)
	actx, cancelAlloc := chromedp.NewExecAllocator(base, opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelCtx(); cancelAlloc(); cancelTimeout() })
	return ctx
}

// writeLanding writes a whole file into the files source's folder, dated a
// minute back so that discovery takes it as complete at once.
func writeLanding(t *testing.T, root, name, content string) {
	t.Helper()
	tmp := filepath.Join(root, "landing", "."+name+".tmp")
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	past := time.Now().Add(-time.Minute)
	if err := os.Chtimes(tmp, past, past); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(root, "landing", name)); err != nil {
		t.Fatal(err)
	}
}

// moduleRoot is the directory of go.mod above the test's directory.
func moduleRoot(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			t.Fatalf("no go.mod above %s", dir)
		}
	}
}
