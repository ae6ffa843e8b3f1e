package migrate

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
)

// A checkpoint is an append-only log, one JSON array a line, of what a
// migration has copied to one destination:
//
//	["destination", "<who>"]            the first line
//	["table", "<table>"]                every entity of the table is upserted
//	["blob", "<container>", "<name>", "<sha256 of the source content>"]
//	["sending", "<queue>", "<source message ID>"]   before each enqueue
//	["message", "<queue>", "<source message ID>", "<destination ID>"]
//
// Each line is written and synced after the write it records, so a crash
// leaves at most the last write unrecorded (and a torn last line, which is
// ignored): that write is done again on the next run. A message sent more
// than once (two "sending" lines) may be at the destination twice.
type checkpoint struct {
	mu       sync.Mutex // guards f and the maps: blobs are copied in parallel
	f        *os.File
	tables   map[string]bool
	blobs    map[string]string // container/name → sha256
	messages map[string]string // queue/source ID → destination ID
}

// openCheckpoint opens (or creates) the checkpoint at path for destination
// dest; it refuses one written for another destination.
func openCheckpoint(path, dest string) (*checkpoint, error) {
	c := &checkpoint{tables: map[string]bool{}, blobs: map[string]string{}, messages: map[string]string{}}
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	good := 0 // bytes of whole lines read
	first := true
	for len(data[good:]) > 0 {
		line, _, ok := bytes.Cut(data[good:], []byte("\n"))
		if !ok {
			break // a torn last line: its write is done again
		}
		var rec []string
		if err := json.Unmarshal(line, &rec); err != nil || len(rec) < 2 {
			return nil, fmt.Errorf("checkpoint %s: line %q is not a checkpoint record; is it a checkpoint file?", path, line)
		}
		switch {
		case first && rec[0] == "destination":
			if rec[1] != dest {
				return nil, fmt.Errorf("checkpoint %s was written for the destination %s, not %s: give another --checkpoint", path, rec[1], dest)
			}
		case first:
			return nil, fmt.Errorf("checkpoint %s does not start with its destination", path)
		case rec[0] == "table":
			c.tables[rec[1]] = true
		case rec[0] == "blob" && len(rec) == 4:
			c.blobs[rec[1]+"/"+rec[2]] = rec[3]
		case rec[0] == "message" && len(rec) == 4:
			c.messages[rec[1]+"/"+rec[2]] = rec[3]
		case rec[0] == "sending" && len(rec) == 3:
		default:
			return nil, fmt.Errorf("checkpoint %s: unknown record %q", path, line)
		}
		first = false
		good += len(line) + 1
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	c.f = f
	if err := f.Truncate(int64(good)); err != nil {
		f.Close()
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	if _, err := f.Seek(int64(good), io.SeekStart); err != nil {
		f.Close()
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	if good == 0 {
		if err := c.add("destination", dest); err != nil {
			f.Close()
			return nil, err
		}
	}
	return c, nil
}

// blob returns the recorded hash of a blob copied, or "".
func (c *checkpoint) blob(container, name string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.blobs[container+"/"+name]
}

// add appends a record and syncs it.
func (c *checkpoint) add(rec ...string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	line, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(c.f)
	w.Write(line)
	w.WriteByte('\n')
	if err := w.Flush(); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if err := c.f.Sync(); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	switch rec[0] {
	case "table":
		c.tables[rec[1]] = true
	case "blob":
		c.blobs[rec[1]+"/"+rec[2]] = rec[3]
	case "message":
		c.messages[rec[1]+"/"+rec[2]] = rec[3]
	}
	return nil
}

func (c *checkpoint) Close() error { return c.f.Close() }

// PossibleDuplicates reads the checkpoint at path and returns, per queue,
// how many messages a crash between an enqueue and its record may have
// copied twice (see Verify).
func PossibleDuplicates(path string) (map[string]int64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	out := map[string]int64{}
	counts := map[string]int{}
	for _, line := range bytes.Split(data, []byte("\n")) {
		var rec []string
		if json.Unmarshal(line, &rec) == nil && len(rec) == 3 && rec[0] == "sending" {
			counts[rec[1]+"\x00"+rec[2]]++
		}
	}
	for key, n := range counts {
		if n > 1 {
			queue, _, _ := strings.Cut(key, "\x00")
			out[queue] += int64(n - 1)
		}
	}
	return out, nil
}
