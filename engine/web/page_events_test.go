package web

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// sseEvent is one event of a text/event-stream, its fields as sent.
type sseEvent struct {
	id, event, data, retry string
}

// readSSE reads events from r until it ends, sending each on out.
// It follows the framing of the HTML standard's event stream: lines of
// "field: value", an event ended by a blank line.
func readSSE(r *bufio.Reader, out chan<- sseEvent) error {
	defer close(out)
	var ev sseEvent
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return err
		}
		line = strings.TrimSuffix(line, "\n")
		if line == "" {
			out <- ev
			ev = sseEvent{}
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "id":
			ev.id = value
		case "event":
			ev.event = value
		case "data":
			if ev.data != "" {
				ev.data += "\n"
			}
			ev.data += value
		case "retry":
			ev.retry = value
		}
	}
}

// TestPageEventsStream: /events is a text/event-stream of snapshot events,
// each numbered (its id is its seq, one more than the last), each one line
// of JSON that decodes, with no field unknown, into the snapshot shape; the
// streaming table the test made is in it with its input, its seven answers
// and the rows the test inserted. When the client goes, the handler ends
// and the sampler stops.
func TestPageEventsStream(t *testing.T) {
	s := startPageTestServer(t, "")
	s.exec(t,
		"CREATE TABLE orders (id bigint, region text, amount numeric(10,2), ts timestamptz)",
		"CREATE STREAMING TABLE order_totals AS SELECT region, count(*) AS n, sum(amount) AS total FROM STREAM orders GROUP BY region")

	ev := newPageEvents(s.eng, 50*time.Millisecond)
	handlerDone := make(chan struct{}, 4)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() { handlerDone <- struct{}{} }()
		ev.ServeHTTP(w, r)
	}))
	defer hs.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, hs.URL, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("Content-Type %q", ct)
	}
	if cc := resp.Header.Get("Cache-Control"); cc != "no-cache" {
		t.Errorf("Cache-Control %q", cc)
	}
	events := make(chan sseEvent, 16)
	go readSSE(bufio.NewReader(resp.Body), events)
	next := func() sseEvent {
		t.Helper()
		select {
		case e, ok := <-events:
			if !ok {
				t.Fatal("the stream ended")
			}
			return e
		case <-time.After(10 * time.Second):
			t.Fatal("no event within 10s")
		}
		return sseEvent{}
	}
	decode := func(e sseEvent) pageSnapshot {
		t.Helper()
		if e.event != "snapshot" {
			t.Fatalf("event type %q, want snapshot", e.event)
		}
		if strings.Contains(e.data, "\n") {
			t.Fatalf("data of more than one line: %q", e.data)
		}
		dec := json.NewDecoder(strings.NewReader(e.data))
		dec.DisallowUnknownFields()
		var snap pageSnapshot
		if err := dec.Decode(&snap); err != nil {
			t.Fatalf("decode %s: %v", e.data, err)
		}
		if e.id != strconv.FormatInt(snap.Seq, 10) {
			t.Errorf("event id %q, seq %d", e.id, snap.Seq)
		}
		return snap
	}

	if first := next(); first.retry != strconv.Itoa(pageEventsRetryMs) || first.event != "" {
		t.Errorf("first event %+v, want the retry delay alone", first)
	}
	a, b := decode(next()), decode(next())
	if b.Seq != a.Seq+1 {
		t.Errorf("seq %d then %d", a.Seq, b.Seq)
	}
	if !b.Time.After(a.Time) {
		t.Errorf("time %v then %v", a.Time, b.Time)
	}
	if len(b.Tables) != 1 {
		t.Fatalf("tables %+v", b.Tables)
	}
	tb := b.Tables[0]
	if tb.ID != "public.order_totals" || tb.Name != "public.order_totals" || tb.Mode != "update" {
		t.Errorf("table %q %q mode %q", tb.ID, tb.Name, tb.Mode)
	}
	if len(tb.Inputs) != 1 || tb.Inputs[0] != "public.orders" {
		t.Errorf("inputs %q", tb.Inputs)
	}
	if len(tb.Answers) != 7 {
		t.Errorf("answers %q, want seven", tb.Answers)
	}
	// The lists are [] when empty, never null: the page reads them as arrays.
	for _, list := range []string{`"sources":[]`, `"sinks":[]`, `"expectations":[]`} {
		if e := next(); !strings.Contains(e.data, list) {
			t.Errorf("%s not in %s", list, e.data)
		}
	}

	s.insertOrders(t, 1, 250)
	deadline := time.Now().Add(20 * time.Second)
	for {
		snap := decode(next())
		if len(snap.Tables) == 1 && snap.Tables[0].InputRows == 250 {
			if snap.Tables[0].InputRate <= 0 || snap.Tables[0].Epoch < 1 {
				t.Errorf("after 250 rows: rate %v, epoch %d", snap.Tables[0].InputRate, snap.Tables[0].Epoch)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("input rows never 250: %+v", snap.Tables)
		}
	}

	// The client goes: its handler returns and, no one listening, the
	// sampler stops.
	cancel()
	select {
	case <-handlerDone:
	case <-time.After(5 * time.Second):
		t.Fatal("the handler did not end when its client went")
	}
	pageWaitUntil(t, "the sampler stops", 5*time.Second, func() (bool, string) {
		ev.mu.Lock()
		defer ev.mu.Unlock()
		return !ev.sampling && len(ev.clients) == 0, strconv.Itoa(len(ev.clients))
	})
}

// TestPageEventsNewestFrame: a client's mailbox holds one frame, the newest;
// the sampler replaces a frame not taken yet instead of waiting.
func TestPageEventsNewestFrame(t *testing.T) {
	c := make(chan []byte, 1)
	offer(c, []byte("1"))
	offer(c, []byte("2")) // would block if offer waited for the client
	if got := <-c; !bytes.Equal(got, []byte("2")) {
		t.Errorf("mailbox held %q, want the newest frame", got)
	}
}

// TestPageRoutes: the page, its assets (as embedded, with their types) and
// a 404 for anything else.
func TestPageRoutes(t *testing.T) {
	s := startPageTestServer(t, "")
	for _, c := range []struct{ path, ctype, holds string }{
		{"/", "text/html", `<script src="/static/app.js"`},
		{"/static/app.js", "text/javascript", `new EventSource("/events")`},
		{"/static/style.css", "text/css", ".graph"},
	} {
		resp, err := http.Get(s.http.URL + c.path)
		if err != nil {
			t.Fatal(err)
		}
		var body bytes.Buffer
		body.ReadFrom(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), c.ctype) || !strings.Contains(body.String(), c.holds) {
			t.Errorf("GET %s: %d %q, holds %q: %v", c.path, resp.StatusCode, resp.Header.Get("Content-Type"), c.holds, strings.Contains(body.String(), c.holds))
		}
	}
	for _, p := range []string{"/nothing", "/static/nothing.js"} {
		resp, err := http.Get(s.http.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 404 {
			t.Errorf("GET %s: %d, want 404", p, resp.StatusCode)
		}
	}
}
