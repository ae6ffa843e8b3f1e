package faulty_test

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/counting"
	"github.com/surveys-dev/surveys/internal/storage/faulty"
	"github.com/surveys-dev/surveys/internal/storage/local"
)

func openCounted(t *testing.T) *counting.Store {
	t.Helper()
	st, err := local.Open(filepath.Join(t.TempDir(), "surveys.db"))
	if err != nil {
		t.Fatal(err)
	}
	c := counting.New(st)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// TestEveryCallCounted calls every method of storage.Storage through the
// fault injection over the counting layer: each is one call of the fault
// injection, and one of the counting layer, of the same Op. So no storage
// call of a flow escapes the crash tests, and their calls are the ones
// the cost figures count.
func TestEveryCallCounted(t *testing.T) {
	c := openCounted(t)
	f := faulty.New(c)
	iface := reflect.TypeFor[storage.Storage]()
	fv := reflect.ValueOf(f)
	ctxType := reflect.TypeFor[context.Context]()
	for i := range iface.NumMethod() {
		m := iface.Method(i)
		if m.Name == "Close" {
			continue // no storage call
		}
		t.Run(m.Name, func(t *testing.T) {
			var args []reflect.Value
			for j := range m.Type.NumIn() {
				switch in := m.Type.In(j); {
				case in == ctxType:
					args = append(args, reflect.ValueOf(context.Background()))
				case in == reflect.TypeFor[time.Duration]():
					args = append(args, reflect.ValueOf(time.Second))
				case in.Kind() == reflect.Int:
					args = append(args, reflect.ValueOf(1))
				case in.Kind() == reflect.String:
					args = append(args, reflect.ValueOf("faulty"))
				default:
					args = append(args, reflect.Zero(in))
				}
			}
			before, calls := snapshot(c), f.Calls()
			fv.MethodByName(m.Name).Call(args)
			after := snapshot(c)
			if f.Calls() != calls+1 {
				t.Fatalf("%s made %d calls of the fault injection, want 1", m.Name, f.Calls()-calls)
			}
			ops := f.Ops()
			op := ops[len(ops)-1].Op
			for k, n := range after {
				if d := n - before[k]; (k == op && d != 1) || (k != op && d != 0) {
					t.Errorf("%s, named %s by the fault injection: the counting layer counted %s %d times", m.Name, op, k, d)
				}
			}
			if _, ok := after[op]; !ok {
				t.Errorf("%s: the counting layer has no op %s", m.Name, op)
			}
		})
	}
}

func snapshot(c *counting.Store) map[faulty.Op]int64 {
	out := map[faulty.Op]int64{}
	for _, row := range c.Snapshot() {
		out[row.Op] = row.Calls
	}
	return out
}

// TestDiesAtCall: a process that dies at call 3 makes calls 1 and 2, not
// 3 (or, After, makes it and is told it failed), and none after.
func TestDiesAtCall(t *testing.T) {
	ctx := context.Background()
	for _, after := range []bool{false, true} {
		c := openCounted(t)
		if err := c.CreateQueue(ctx, "work"); err != nil {
			t.Fatal(err)
		}
		f := faulty.At(c, 3, after)
		deaths := 0
		f.OnDeath = func() { deaths++ }
		for i := range 5 {
			_, err := f.Enqueue(ctx, "work", []byte{byte(i)}, storage.EnqueueOptions{})
			if wantErr := i >= 2; (err != nil) != wantErr || err != nil && !errors.Is(err, faulty.ErrCrash) {
				t.Errorf("after=%v: enqueue %d: %v, want a crash %v", after, i+1, err, wantErr)
			}
		}
		n, err := c.ApproximateCount(ctx, "work")
		if want := map[bool]int{false: 2, true: 3}[after]; err != nil || n != want {
			t.Errorf("after=%v: %d messages stored (%v), want %d", after, n, err, want)
		}
		if !f.Dead() || f.Calls() != 5 || deaths != 1 {
			t.Errorf("after=%v: dead %v, %d calls, OnDeath called %d times, want once", after, f.Dead(), f.Calls(), deaths)
		}
	}
}

// TestCountsWrites: counting only writes, reads go through until the
// process dies, then fail too.
func TestCountsWrites(t *testing.T) {
	ctx := context.Background()
	c := openCounted(t)
	if err := c.CreateQueue(ctx, "work"); err != nil {
		t.Fatal(err)
	}
	f := faulty.At(c, 2, false)
	f.Counts = faulty.Writes
	if _, err := f.Enqueue(ctx, "work", []byte("1"), storage.EnqueueOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.PeekMessages(ctx, "work", 1); err != nil {
		t.Fatalf("a read before the death: %v", err)
	}
	if _, err := f.Enqueue(ctx, "work", []byte("2"), storage.EnqueueOptions{}); !errors.Is(err, faulty.ErrCrash) {
		t.Fatalf("write 2 = %v, want the crash", err)
	}
	if _, err := f.PeekMessages(ctx, "work", 1); !errors.Is(err, faulty.ErrCrash) {
		t.Fatalf("a read after the death = %v, want the crash", err)
	}
	if got := f.Ops(); len(got) != 2 || got[0] != got[1] || got[0].Kind != "enqueue" || got[0].Target != "work" {
		t.Errorf("counted %v, want the two enqueues", got)
	}
}
