package migrate

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzCheckpoint: any file content either opens as a checkpoint or gives an
// error, never a panic; a torn last line is dropped; what opens, reopens
// the same, and records added after it are read back.
func FuzzCheckpoint(f *testing.F) {
	f.Add([]byte("[\"destination\",\"d\"]\n[\"table\",\"surveys\"]\n[\"blob\",\"c\",\"n\",\"ab\"]\n[\"message\",\"q\",\"1\",\"2\"]\n"))
	f.Add([]byte("[\"destination\",\"d\"]\n[\"message\",\"q\",\"1\""))
	f.Add([]byte("[\"destination\",\"other\"]\n"))
	f.Add([]byte("hello\n"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "cp")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := openCheckpoint(path, "d")
		if err != nil {
			return
		}
		if err := c.add("message", "q", "from\n\"x", "to"); err != nil {
			t.Fatal(err)
		}
		c.Close()
		again, err := openCheckpoint(path, "d")
		if err != nil {
			t.Fatalf("reopen: %v", err)
		}
		defer again.Close()
		if !reflect.DeepEqual(again.tables, c.tables) || !reflect.DeepEqual(again.blobs, c.blobs) || !reflect.DeepEqual(again.messages, c.messages) {
			t.Fatalf("reopened checkpoint differs")
		}
		if again.messages["q/from\n\"x"] != "to" {
			t.Fatalf("the added record is lost")
		}
	})
}
