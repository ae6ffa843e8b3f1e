package storagetest

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
)

// runQueues is the contract of storage.Queues, a parallel subtest per
// aspect, each on a queue of its own.
func runQueues(t *testing.T, newStorage func(t *testing.T) storage.Storage) {
	// onQueue runs test, in parallel with the others, on a storage and a
	// fresh, created queue that is deleted when the test ends.
	onQueue := func(test func(t *testing.T, s storage.Queues, q string)) func(t *testing.T) {
		return func(t *testing.T) {
			t.Parallel()
			s := newStorage(t)
			name := dnsName("q")
			noErr(t, "CreateQueue", s.CreateQueue(ctx(t), name))
			t.Cleanup(func() { _ = s.DeleteQueue(ctx(t), name) })
			test(t, s, name)
		}
	}
	t.Run("Redelivery", onQueue(queueRedelivery))
	t.Run("Batches", onQueue(queueBatches))
	t.Run("UpdateVisibility", onQueue(queueUpdateVisibility))
	t.Run("Peek", onQueue(queuePeek))
	t.Run("DelayAndTTL", onQueue(queueDelayAndTTL))
	t.Run("Limits", onQueue(queueLimits))
}

// queueRedelivery checks that a dequeued message comes with its ID, body,
// pop receipt and a dequeue count of 1, is hidden while it is worked on,
// is delivered again after its visibility timeout (dequeue count 2), and
// is deleted only with the current pop receipt.
func queueRedelivery(t *testing.T, s storage.Queues, q string) {
	body := []byte("{\"tenant\":\"adatum\"}\x00\xff<&>")
	id, err := s.Enqueue(ctx(t), q, body, storage.EnqueueOptions{})
	noErr(t, "Enqueue", err)
	if id == "" {
		t.Fatal("Enqueue returned an empty ID")
	}
	msgs, err := s.Dequeue(ctx(t), q, 32, time.Second)
	noErr(t, "Dequeue", err)
	if len(msgs) != 1 {
		t.Fatalf("Dequeue gave %d messages, want 1", len(msgs))
	}
	m := msgs[0]
	if m.ID != id || !bytes.Equal(m.Data, body) || m.DequeueCount != 1 || m.PopReceipt == "" {
		t.Fatalf("message = %+v, want ID %s, body %q, dequeue count 1", m, id, body)
	}
	if m.InsertedAt.IsZero() || !m.ExpiresAt.After(m.InsertedAt) {
		t.Errorf("InsertedAt %v ExpiresAt %v", m.InsertedAt, m.ExpiresAt)
	}
	// Hidden while it is being worked on.
	again, err := s.Dequeue(ctx(t), q, 32, time.Second)
	noErr(t, "Dequeue while hidden", err)
	if len(again) != 0 {
		t.Fatalf("hidden message delivered again at once: %+v", again)
	}
	// Delivered again after the visibility timeout: the worker died.
	var second storage.Message
	eventually(t, 10*time.Second, "redelivery", func() bool {
		msgs, err := s.Dequeue(ctx(t), q, 32, 30*time.Second)
		noErr(t, "Dequeue", err)
		if len(msgs) == 0 {
			return false
		}
		second = msgs[0]
		return true
	})
	if second.ID != id || second.DequeueCount != 2 || !bytes.Equal(second.Data, body) {
		t.Fatalf("redelivered %+v, want ID %s, dequeue count 2", second, id)
	}
	err = s.DeleteMessage(ctx(t), q, id, m.PopReceipt)
	if !isNotFound(err) && !isPrecondition(err) {
		t.Fatalf("DeleteMessage with a stale pop receipt: %v, want not found or precondition", err)
	}
	noErr(t, "DeleteMessage", s.DeleteMessage(ctx(t), q, id, second.PopReceipt))
	wantErr(t, "DeleteMessage twice", s.DeleteMessage(ctx(t), q, id, second.PopReceipt), storage.ErrNotFound)
	n, err := s.ApproximateCount(ctx(t), q)
	noErr(t, "ApproximateCount", err)
	if n != 0 {
		t.Errorf("ApproximateCount = %d after delete", n)
	}
}

// queueBatches checks that 40 messages come in a batch of 32 and one of 8,
// each once, none lost or duplicated, and that the emptied queue gives
// none.
func queueBatches(t *testing.T, s storage.Queues, q string) {
	want := map[string]bool{}
	for i := 0; i < 40; i++ {
		body := fmt.Sprintf("m%02d", i)
		want[body] = true
		_, err := s.Enqueue(ctx(t), q, []byte(body), storage.EnqueueOptions{})
		noErr(t, "Enqueue", err)
	}
	n, err := s.ApproximateCount(ctx(t), q)
	noErr(t, "ApproximateCount", err)
	if n != 40 {
		t.Errorf("ApproximateCount = %d, want 40", n)
	}
	first, err := s.Dequeue(ctx(t), q, 32, time.Minute)
	noErr(t, "Dequeue 32", err)
	if len(first) != 32 {
		t.Fatalf("Dequeue 32 of 40 gave %d", len(first))
	}
	rest, err := s.Dequeue(ctx(t), q, 32, time.Minute)
	noErr(t, "Dequeue rest", err)
	if len(rest) != 8 {
		t.Fatalf("second Dequeue gave %d, want 8", len(rest))
	}
	var got []string
	for _, m := range append(first, rest...) {
		got = append(got, string(m.Data))
		noErr(t, "DeleteMessage", s.DeleteMessage(ctx(t), q, m.ID, m.PopReceipt))
	}
	sort.Strings(got)
	if len(got) != len(want) {
		t.Fatalf("got %d distinct deliveries", len(got))
	}
	for i, g := range got {
		if g != fmt.Sprintf("m%02d", i) {
			t.Fatalf("delivery %d is %q: a message was lost or duplicated", i, g)
		}
	}
	none, err := s.Dequeue(ctx(t), q, 1, time.Second)
	noErr(t, "Dequeue empty", err)
	if len(none) != 0 {
		t.Errorf("empty queue gave %d messages", len(none))
	}
}

// queueUpdateVisibility checks that a visibility of 0 releases a message
// (with a new pop receipt; the old one is refused) to be delivered again,
// and that extending it keeps it hidden.
func queueUpdateVisibility(t *testing.T, s storage.Queues, q string) {
	_, err := s.Enqueue(ctx(t), q, []byte("work"), storage.EnqueueOptions{})
	noErr(t, "Enqueue", err)
	msgs, err := s.Dequeue(ctx(t), q, 1, time.Minute)
	noErr(t, "Dequeue", err)
	if len(msgs) != 1 {
		t.Fatalf("Dequeue gave %d", len(msgs))
	}
	m := msgs[0]
	receipt, err := s.UpdateVisibility(ctx(t), q, m.ID, m.PopReceipt, 0)
	noErr(t, "UpdateVisibility 0 (release)", err)
	if receipt == "" || receipt == m.PopReceipt {
		t.Errorf("UpdateVisibility gave pop receipt %q (old %q)", receipt, m.PopReceipt)
	}
	_, err = s.UpdateVisibility(ctx(t), q, m.ID, m.PopReceipt, 0)
	if !isNotFound(err) && !isPrecondition(err) {
		t.Errorf("UpdateVisibility with a stale pop receipt: %v", err)
	}
	var back []storage.Message
	eventually(t, 5*time.Second, "released message visible", func() bool {
		back, err = s.Dequeue(ctx(t), q, 1, time.Minute)
		noErr(t, "Dequeue", err)
		return len(back) == 1
	})
	if string(back[0].Data) != "work" || back[0].DequeueCount != 2 {
		t.Errorf("released message = %q count %d, want work, 2", back[0].Data, back[0].DequeueCount)
	}
	// Extending keeps it hidden.
	receipt, err = s.UpdateVisibility(ctx(t), q, back[0].ID, back[0].PopReceipt, time.Minute)
	noErr(t, "UpdateVisibility extend", err)
	none, err := s.Dequeue(ctx(t), q, 1, time.Second)
	noErr(t, "Dequeue", err)
	if len(none) != 0 {
		t.Error("extended message delivered")
	}
	noErr(t, "DeleteMessage with the updated receipt", s.DeleteMessage(ctx(t), q, back[0].ID, receipt))
}

// queuePeek checks that a peek shows the oldest visible messages without
// hiding them or counting a delivery, skips a hidden one, and refuses a
// count out of 1 to 32 or a missing queue.
func queuePeek(t *testing.T, s storage.Queues, q string) {
	none, err := s.PeekMessages(ctx(t), q, 32)
	noErr(t, "PeekMessages of an empty queue", err)
	if len(none) != 0 {
		t.Fatalf("empty queue peeked %d messages", len(none))
	}
	var ids []string
	for i := 0; i < 3; i++ {
		id, err := s.Enqueue(ctx(t), q, []byte(fmt.Sprintf("p%d", i)), storage.EnqueueOptions{})
		noErr(t, "Enqueue", err)
		ids = append(ids, id)
		time.Sleep(20 * time.Millisecond) // distinct insertion order
	}
	for round := 0; round < 2; round++ { // a peek neither hides nor counts a delivery
		msgs, err := s.PeekMessages(ctx(t), q, 2)
		noErr(t, "PeekMessages", err)
		if len(msgs) != 2 {
			t.Fatalf("round %d: peeked %d messages, want 2", round, len(msgs))
		}
		for i, m := range msgs {
			if m.ID != ids[i] || string(m.Data) != fmt.Sprintf("p%d", i) {
				t.Fatalf("round %d: peek %d = %s %q, want %s p%d (oldest first)", round, i, m.ID, m.Data, ids[i], i)
			}
			if m.InsertedAt.IsZero() || m.PopReceipt != "" || m.DequeueCount != 0 {
				t.Errorf("round %d: peeked %+v, want InsertedAt set, no pop receipt, dequeue count 0", round, m)
			}
		}
	}
	// The peeked messages are all still delivered, each once.
	got, err := s.Dequeue(ctx(t), q, 1, time.Minute)
	noErr(t, "Dequeue", err)
	if len(got) != 1 || got[0].ID != ids[0] || got[0].DequeueCount != 1 {
		t.Fatalf("Dequeue after peeks gave %+v, want %s with dequeue count 1", got, ids[0])
	}
	// A hidden message is not peeked, as in Azure.
	msgs, err := s.PeekMessages(ctx(t), q, 32)
	noErr(t, "PeekMessages with one hidden", err)
	if len(msgs) != 2 || msgs[0].ID != ids[1] || msgs[1].ID != ids[2] {
		t.Fatalf("peeked %d messages with the oldest hidden, want %s and %s", len(msgs), ids[1], ids[2])
	}
	n, err := s.ApproximateCount(ctx(t), q)
	noErr(t, "ApproximateCount", err)
	if n != 3 {
		t.Errorf("ApproximateCount = %d after peeks, want 3", n)
	}
	for _, max := range []int{0, 33} {
		_, err := s.PeekMessages(ctx(t), q, max)
		wantErr(t, fmt.Sprintf("PeekMessages(%d)", max), err, storage.ErrInvalid)
	}
	_, err = s.PeekMessages(ctx(t), dnsName("missing"), 1)
	wantErr(t, "PeekMessages of a missing queue", err, storage.ErrNotFound)
}

// queueDelayAndTTL checks that a delayed message comes only after its
// delay, that a short-lived one expires and that one that never expires
// stays.
func queueDelayAndTTL(t *testing.T, s storage.Queues, q string) {
	_, err := s.Enqueue(ctx(t), q, []byte("later"), storage.EnqueueOptions{Delay: 2 * time.Second})
	noErr(t, "Enqueue delayed", err)
	_, err = s.Enqueue(ctx(t), q, []byte("short"), storage.EnqueueOptions{TTL: time.Second})
	noErr(t, "Enqueue short-lived", err)
	_, err = s.Enqueue(ctx(t), q, []byte("forever"), storage.EnqueueOptions{TTL: -1})
	noErr(t, "Enqueue never-expiring", err)
	time.Sleep(1500 * time.Millisecond)
	msgs, err := s.Dequeue(ctx(t), q, 32, time.Minute)
	noErr(t, "Dequeue", err)
	var got []string
	for _, m := range msgs {
		got = append(got, string(m.Data))
	}
	if strings.Join(got, ",") != "forever" {
		t.Fatalf("after 1.5s got %v, want only forever (later is delayed, short expired)", got)
	}
	eventually(t, 5*time.Second, "delayed message", func() bool {
		msgs, err := s.Dequeue(ctx(t), q, 32, time.Minute)
		noErr(t, "Dequeue", err)
		return len(msgs) == 1 && string(msgs[0].Data) == "later"
	})
}

// queueLimits checks the limits: a message of storage.MaxMessageSize bytes
// is taken and one byte more refused, Dequeue's count and visibility are
// bounded, a missing queue is not found, and which queue names are
// refused and taken.
func queueLimits(t *testing.T, s storage.Queues, q string) {
	big := bytes.Repeat([]byte{0xfe}, storage.MaxMessageSize)
	_, err := s.Enqueue(ctx(t), q, big, storage.EnqueueOptions{})
	noErr(t, "Enqueue of MaxMessageSize bytes", err)
	_, err = s.Enqueue(ctx(t), q, append(big, 1), storage.EnqueueOptions{})
	wantErr(t, "Enqueue of MaxMessageSize+1 bytes", err, storage.ErrTooLarge)
	msgs, err := s.Dequeue(ctx(t), q, 32, time.Minute)
	noErr(t, "Dequeue", err)
	if len(msgs) != 1 || !bytes.Equal(msgs[0].Data, big) {
		t.Fatalf("got %d messages, want the one big message intact", len(msgs))
	}
	for _, tc := range []struct {
		max int
		vis time.Duration
	}{{0, time.Second}, {33, time.Second}, {1, 0}, {1, 8 * 24 * time.Hour}} {
		_, err := s.Dequeue(ctx(t), q, tc.max, tc.vis)
		wantErr(t, fmt.Sprintf("Dequeue(%d, %s)", tc.max, tc.vis), err, storage.ErrInvalid)
	}
	_, err = s.Enqueue(ctx(t), dnsName("missing"), []byte("x"), storage.EnqueueOptions{})
	wantErr(t, "Enqueue to a missing queue", err, storage.ErrNotFound)
	for _, name := range []string{"ab", "Abc", "a--b", "-abc", "abc-", "a_b", strings.Repeat("q", 64)} {
		wantErr(t, fmt.Sprintf("CreateQueue(%q)", name), s.CreateQueue(ctx(t), name), storage.ErrInvalid)
	}
	long := randHex(8) + "-" + strings.Repeat("q", 54)
	noErr(t, "CreateQueue of a 63-character name", s.CreateQueue(ctx(t), long))
	noErr(t, "CreateQueue twice", s.CreateQueue(ctx(t), long))
	noErr(t, "DeleteQueue", s.DeleteQueue(ctx(t), long))
}
