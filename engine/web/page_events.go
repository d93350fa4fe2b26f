package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/weir-sql/weir/engine"
)

// pageEvents serves /events: a Server-Sent Events stream of pageSnapshot
// frames, one every interval, for as long as the client stays.
//
// One sampler reads engine.Monitor for all the clients (so ten open tabs
// cost one Monitor a second, not ten), and runs only while someone
// listens. It hands each client the newest frame through a one-frame
// mailbox and never waits for a client: a client too slow to take a frame
// misses it (the page sees the gap in the sequence numbers), and a client
// that stops reading is cut off by the write deadline. Nothing a client
// does reaches the engine.
type pageEvents struct {
	eng      *engine.Engine
	interval time.Duration

	mu       sync.Mutex
	clients  map[chan []byte]struct{}
	sampling bool   // the sampler goroutine is running
	seq      int64  // the last frame's number
	newest   []byte // the last frame, while sampling (a new client gets it at once)
}

// pageEventsInterval is how often the page is sent a snapshot.
const pageEventsInterval = time.Second

// pageEventsWriteTimeout bounds one frame's write: a client that reads
// nothing for this long is disconnected.
const pageEventsWriteTimeout = 10 * time.Second

// pageEventsRetryMs is the reconnection delay the stream asks of the
// browser's EventSource (the SSE "retry" field).
const pageEventsRetryMs = 2000

func newPageEvents(eng *engine.Engine, interval time.Duration) *pageEvents {
	return &pageEvents{eng: eng, interval: interval, clients: map[chan []byte]struct{}{}}
}

func (h *pageEvents) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	hdr := w.Header()
	hdr.Set("Content-Type", "text/event-stream; charset=utf-8")
	hdr.Set("Cache-Control", "no-cache")
	hdr.Set("X-Accel-Buffering", "no") // a proxy in front must not hold frames back
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return
	}
	rc := http.NewResponseController(w)
	if !h.write(w, rc, fmt.Appendf(nil, "retry: %d\n\n", pageEventsRetryMs)) {
		return
	}
	frames := h.subscribe()
	defer h.unsubscribe(frames)
	for {
		select {
		case <-r.Context().Done():
			return
		case f := <-frames:
			if !h.write(w, rc, f) {
				return
			}
		}
	}
}

// write sends b and flushes it, within the write deadline; false: the
// client is gone.
func (h *pageEvents) write(w http.ResponseWriter, rc *http.ResponseController, b []byte) bool {
	rc.SetWriteDeadline(time.Now().Add(pageEventsWriteTimeout)) // not every writer has one: best effort
	if _, err := w.Write(b); err != nil {
		return false
	}
	return rc.Flush() == nil
}

// subscribe adds a client and returns its mailbox, holding the newest
// frame already when there is one; it starts the sampler if it is idle.
func (h *pageEvents) subscribe() chan []byte {
	c := make(chan []byte, 1)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.clients[c] = struct{}{}
	if h.newest != nil {
		c <- h.newest
	}
	if !h.sampling {
		h.sampling = true
		go h.sample()
	}
	return c
}

func (h *pageEvents) unsubscribe(c chan []byte) {
	h.mu.Lock()
	delete(h.clients, c)
	h.mu.Unlock()
}

// sample reads the engine every interval and offers the frame to every
// client; it returns when no client is left.
func (h *pageEvents) sample() {
	tick := time.NewTicker(h.interval)
	defer tick.Stop()
	for {
		// No client left (the server may be closing): stop before reading
		// the engine again.
		if !h.anyClient() {
			return
		}
		m := h.eng.Monitor() // outside the lock: clients come and go meanwhile
		h.mu.Lock()
		h.seq++
		f, err := encodeFrame(newPageSnapshot(h.seq, m))
		if err == nil {
			h.newest = f
			for c := range h.clients {
				offer(c, f)
			}
		}
		h.mu.Unlock()
		<-tick.C
	}
}

// anyClient reports whether a client listens; when none does it marks the
// sampler stopped (under the same lock subscribe starts it under).
func (h *pageEvents) anyClient() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.clients) == 0 {
		h.sampling, h.newest = false, nil
		return false
	}
	return true
}

// offer puts f in mailbox c, replacing a frame the client has not taken
// yet. The sampler is c's only sender, so this never blocks.
func offer(c chan []byte, f []byte) {
	select {
	case <-c:
	default:
	}
	c <- f
}

// encodeFrame is s as one SSE event: its sequence number as the event id,
// event type "snapshot", the JSON on one data line (encoding/json writes
// no newlines), and the blank line that ends an event.
func encodeFrame(s pageSnapshot) ([]byte, error) {
	js, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, len(js)+48)
	b = fmt.Appendf(b, "id: %d\nevent: snapshot\ndata: ", s.Seq)
	b = append(b, js...)
	return append(b, "\n\n"...), nil
}
