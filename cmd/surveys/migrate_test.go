package main

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/surveys-dev/surveys/internal/migrate"
	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/azure"
	"github.com/surveys-dev/surveys/internal/storage/azure/azuritetest"
	"github.com/surveys-dev/surveys/internal/storage/local"
	"github.com/surveys-dev/surveys/internal/store"
)

// newTestMainWith boots the real server with extra flags and environment.
func newTestMainWith(t *testing.T, args []string, env map[string]string) *Main {
	t.Helper()
	cfg, err := parseServe(append([]string{"--addr", "127.0.0.1:0"}, args...), func(k string) string { return env[k] }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	cfg.PasswordCost = bcrypt.MinCost // see testUsers
	m := NewMain(cfg, io.Discard)
	if err := m.Run(context.Background()); err != nil {
		t.Fatalf("Run: %v", err)
	}
	return m
}

func testPNG(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 8, 8))
	img.Set(1, 1, color.RGBA{200, 0, 0, 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestMigrateToAzurite moves a server's embedded store to Azurite with
// "surveys migrate": the demo data, a subscriber's account and API token,
// a logo, answers merged into a summary, and answers still queued (one of
// them taken by a worker that stopped, so invisible). The destination then
// holds every entity and blob as the source does, and a server started on
// it serves the same data and merges the queued answers exactly once.
func TestMigrateToAzurite(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	const password = "correct horse battery"
	// The respondents answer faster than an address may (30 a minute).
	m := newTestMainWith(t, []string{"--data", dir, "--answers-per-minute=0"}, nil)
	if _, err := testUsers(m.Storage).Add(ctx, demoTenant, "a@adatum.example", password); err != nil {
		t.Fatal(err)
	}
	token, err := store.NewTokenStore(m.Storage).Create(ctx, demoTenant, "migration test")
	if err != nil {
		t.Fatal(err)
	}
	logo, err := store.NewLogoStore(m.Storage).Put(ctx, demoTenant, testPNG(t))
	if err != nil {
		t.Fatal(err)
	}
	led, stop := respondents(t, m.Addr(), 2)
	waitAnswered(t, led, 15)
	stop()
	drainAnswers(t, m.Storage)
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	// Answers acknowledged by a server without a worker: still queued.
	m = newTestMainWith(t, []string{"--data", dir, "--worker=false", "--answers-per-minute=0"}, nil)
	led2, stop := respondents(t, m.Addr(), 2)
	waitAnswered(t, led2, 8)
	stop()
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	answered := led.answered.Load() + led2.answered.Load()
	// A worker took a message and stopped: it is invisible for an hour.
	src, err := local.Open(filepath.Join(dir, "surveys.db"))
	if err != nil {
		t.Fatal(err)
	}
	taken := 0
	for _, q := range store.AnswerQueues {
		msgs, err := src.Dequeue(ctx, q, 1, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		taken += len(msgs)
	}
	if taken == 0 {
		t.Fatal("no answers message queued")
	}
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}

	env := map[string]string{"AZURE_STORAGE_CONNECTION_STRING": azuritetest.ConnectionString()}
	var stdout bytes.Buffer
	start := time.Now()
	if err := run(ctx, []string{"migrate", "--to", "azure", "--data", dir}, func(k string) string { return env[k] }, strings.NewReader(""), &stdout, io.Discard); err != nil {
		t.Fatalf("migrate: %v\n%s", err, stdout.String())
	}
	t.Logf("migrate took %v:\n%s", time.Since(start).Round(time.Millisecond), stdout.String())
	for _, want := range []string{"every count matches", "KIND", "surveyanswerssummaries", "logos", "surveyanswers "} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("migrate's output lacks %q", want)
		}
	}

	// Every entity and blob, compared.
	dst, err := azure.New(azure.Config{ConnectionString: azuritetest.ConnectionString()})
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	snap, err := local.OpenSnapshot(ctx, filepath.Join(dir, "surveys.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	tables, _ := snap.Tables(ctx)
	entities := 0
	for _, table := range tables {
		err := snap.Entities(ctx, table, func(want storage.Entity) error {
			got, err := dst.GetEntity(ctx, table, want.PartitionKey, want.RowKey)
			if err != nil {
				return err
			}
			if !reflect.DeepEqual(got.Properties, azureTimes(want.Properties)) {
				t.Errorf("%s/%s/%s differs:\n%#v\n%#v", table, want.PartitionKey, want.RowKey, got.Properties, want.Properties)
			}
			entities++
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	containers, _ := snap.Containers(ctx)
	blobs := 0
	for _, c := range containers {
		err := snap.Blobs(ctx, c.Name, func(b local.BlobInfo, data []byte) error {
			got, err := dst.GetBlob(ctx, c.Name, b.Name)
			if err != nil {
				return err
			}
			if !bytes.Equal(got.Data, data) || got.ContentType != b.ContentType {
				t.Errorf("blob %s/%s differs", c.Name, b.Name)
			}
			blobs++
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	var want, got []string
	queues, _ := snap.Queues(ctx)
	for _, q := range queues {
		if err := snap.Messages(ctx, q, func(m local.QueuedMessage) error { want = append(want, q+" "+string(m.Data)); return nil }); err != nil {
			t.Fatal(err)
		}
		for {
			msgs, err := dst.Dequeue(ctx, q, storage.MaxDequeue, time.Second)
			if err != nil {
				t.Fatal(err)
			}
			if len(msgs) == 0 {
				break
			}
			for _, m := range msgs {
				got = append(got, q+" "+string(m.Data))
			}
		}
	}
	slices.Sort(want)
	slices.Sort(got)
	if !reflect.DeepEqual(got, want) || len(want) == 0 {
		t.Errorf("the destination's messages (%d) differ from the source's (%d)", len(got), len(want))
	}
	t.Logf("compared %d entities, %d blobs, %d messages", entities, blobs, len(want))
	time.Sleep(1100 * time.Millisecond) // the messages taken above come back

	// A server on the account serves the same data and merges the queued
	// answers once.
	az := newTestMainWith(t, nil, env)
	defer az.Close()
	drainAnswers(t, az.Storage)
	ids := checkAnswers(t, az.Storage, demoTenant, demoSlug)
	if int64(len(ids)) != answered {
		t.Errorf("%d answers at the destination, %d acknowledged", len(ids), answered)
	}
	base := "http://" + az.Addr()
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar}
	resp, err := client.PostForm(base+"/login", map[string][]string{"tenant": {demoTenant}, "email": {"a@adatum.example"}, "password": {password}})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "Adatum customer satisfaction") {
		t.Errorf("sign-in and dashboard on Azure = %d", resp.StatusCode)
	}
	req, _ := http.NewRequest("GET", base+"/api/v1/surveys/"+demoSlug+"/summary", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"totalAnswers":`+strconv.FormatInt(answered, 10)) {
		t.Errorf("API summary with the migrated token = %d %s, want %d answers", resp.StatusCode, body, answered)
	}
	if code, _ := get(t, az, "/logos/"+logo); code != http.StatusOK {
		t.Errorf("the migrated logo = %d", code)
	}
}

// azureTimes truncates time properties to Azure Tables' precision, 100 ns
// (the embedded store keeps nanoseconds).
func azureTimes(props map[string]any) map[string]any {
	out := make(map[string]any, len(props))
	for k, v := range props {
		if tv, ok := v.(time.Time); ok {
			v = tv.Truncate(100 * time.Nanosecond)
		}
		out[k] = v
	}
	return out
}

func TestMigrateBadInput(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	newTestMain(t, dir).Close()
	inUse := t.TempDir()
	notStore := t.TempDir()
	if err := os.WriteFile(filepath.Join(notStore, "surveys.db"), bytes.Repeat([]byte("not sqlite "), 500), 0o600); err != nil {
		t.Fatal(err)
	}
	withRegion := t.TempDir()
	newTestMain(t, withRegion).Close()
	if err := os.MkdirAll(filepath.Join(withRegion, "regions"), 0o750); err != nil {
		t.Fatal(err)
	}
	r, err := local.Open(filepath.Join(withRegion, "regions", "eastus.db"))
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	cs := map[string]string{"AZURE_STORAGE_CONNECTION_STRING": azuritetest.ConnectionString()}
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		wantErr string
	}{
		{"unknown flag", []string{"--to", "azure", "--data", dir, "--too", "x"}, cs, "flag provided but not defined"},
		{"no --to", []string{"--data", dir}, cs, "--to azure"},
		{"--to s3", []string{"--to", "s3", "--data", dir}, cs, "--to azure"},
		{"no destination", []string{"--to", "azure", "--data", dir}, nil, "needs AZURE_STORAGE_CONNECTION_STRING"},
		{"no store", []string{"--to", "azure", "--data", t.TempDir()}, cs, "holds no embedded store"},
		{"not a store", []string{"--to", "azure", "--from", notStore}, cs, "not a Surveys store"},
		{"server running", []string{"--to", "azure", "--data", inUse}, cs, "is in use"},
		{"region without an account", []string{"--to", "azure", "--data", withRegion}, cs, "AZURE_STORAGE_CONNECTION_STRING_EASTUS"},
	}
	m := newTestMain(t, inUse)
	defer m.Close()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := run(ctx, append([]string{"migrate"}, tc.args...), func(k string) string { return tc.env[k] }, strings.NewReader(""), io.Discard, io.Discard)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want %q", err, tc.wantErr)
			}
			// Nothing was copied: no checkpoint anywhere.
			for _, d := range []string{dir, inUse, notStore, withRegion} {
				if found, _ := filepath.Glob(filepath.Join(d, "*.migrate-checkpoint")); len(found) > 0 {
					t.Errorf("a checkpoint was written: %v", found)
				}
			}
		})
	}
}

// TestMigrateRegions migrates a backup folder with a region's store: each
// store goes to its own account (here both are Azurite, with names of
// their own), and a second run copies nothing again.
func TestMigrateRegions(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "regions"), 0o750); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"surveys.db", "regions/northeurope.db"} {
		st, err := local.Open(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Base(f), ".db")
		if err := st.CreateQueue(ctx, "q"+name); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Enqueue(ctx, "q"+name, []byte(name), storage.EnqueueOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
	}
	backup := filepath.Join(t.TempDir(), "backup")
	if err := run(ctx, []string{"backup", "--data", dir, "--out", backup}, none, strings.NewReader(""), io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"AZURE_STORAGE_CONNECTION_STRING": azuritetest.ConnectionString(),
		"AZURE_STORAGE_CONNECTION_STRING_NORTHEUROPE": azuritetest.ConnectionString()}
	for i := range 2 {
		var stdout bytes.Buffer
		if err := run(ctx, []string{"migrate", "--to", "azure", "--from", backup}, func(k string) string { return env[k] }, strings.NewReader(""), &stdout, io.Discard); err != nil {
			t.Fatalf("migrate %d: %v\n%s", i, err, stdout.String())
		}
		for _, want := range []string{"qsurveys", "qnortheurope", filepath.Join(backup, "regions", "northeurope.db")} {
			if !strings.Contains(stdout.String(), want) {
				t.Errorf("run %d: no %q in\n%s", i, want, stdout.String())
			}
		}
		if i == 1 && !strings.Contains(stdout.String(), "copied 0 entities, 0 blobs, 0 messages") {
			t.Errorf("the second run copied something:\n%s", stdout.String())
		}
	}
	dst, err := azure.New(azure.Config{ConnectionString: azuritetest.ConnectionString()})
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	for _, q := range []string{"qsurveys", "qnortheurope"} {
		if n, err := dst.ApproximateCount(ctx, q); err != nil || n != 1 {
			t.Errorf("queue %s holds %d messages (%v), want 1", q, n, err)
		}
	}
}

// TestMigrateKilled kills "surveys migrate" (the real binary, kill -9) at
// random points several times, then lets it finish: every count matches,
// and no message is at the destination twice except those the checkpoint
// says a kill between an enqueue and its record may have copied twice.
func TestMigrateKilled(t *testing.T) {
	ctx := context.Background()
	bin := buildServer(t)
	dir := t.TempDir()
	st, err := local.Open(filepath.Join(dir, "surveys.db"))
	if err != nil {
		t.Fatal(err)
	}
	const blobs, messages = 400, 300
	for _, step := range []error{st.CreateTable(ctx, "Killedtable"), st.CreateContainer(ctx, "killed", false), st.CreateQueue(ctx, "killed")} {
		if step != nil {
			t.Fatal(step)
		}
	}
	for i := range 300 {
		if _, err := st.UpsertEntity(ctx, "Killedtable", storage.Entity{PartitionKey: strconv.Itoa(i % 4), RowKey: strconv.Itoa(i)}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range blobs {
		if _, err := st.PutBlob(ctx, "killed", strconv.Itoa(i), bytes.Repeat([]byte{'b'}, 2000), storage.PutOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range messages {
		if _, err := st.Enqueue(ctx, "killed", []byte(strconv.Itoa(i)), storage.EnqueueOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "AZURE_STORAGE_CONNECTION_STRING="+azuritetest.ConnectionString())
	kills := 0
	for run := 0; ; run++ {
		var out bytes.Buffer
		cmd := exec.Command(bin, "migrate", "--to", "azure", "--data", dir)
		cmd.Env, cmd.Stdout, cmd.Stderr = env, &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		// Runs 0 and 1 are killed at a random time (tables, blobs), runs 2
		// and 3 once they are sending messages.
		kill := make(chan struct{})
		go func() {
			defer close(kill)
			if run < 2 {
				time.Sleep(time.Duration(200+rand.IntN(600)) * time.Millisecond)
				return
			}
			target := 60*(run-1) + rand.IntN(60)
			for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
				cp, _ := os.ReadFile(filepath.Join(dir, "surveys.db.migrate-checkpoint"))
				if bytes.Count(cp, []byte(`"sending"`)) >= target {
					return
				}
			}
		}()
		if run < 4 {
			select {
			case err := <-done:
				t.Logf("run %d finished before its kill: %v", run, err)
			case <-kill:
				cmd.Process.Kill()
				<-done
				kills++
				cp, _ := os.ReadFile(filepath.Join(dir, "surveys.db.migrate-checkpoint"))
				t.Logf("killed run %d: %d checkpoint lines", run, bytes.Count(cp, []byte("\n")))
				continue
			}
		} else if err := <-done; err != nil {
			t.Fatalf("the last run: %v\n%s", err, out.String())
		}
		if !strings.Contains(out.String(), "every count matches") {
			t.Fatalf("run %d:\n%s", run, out.String())
		}
		break
	}
	possible, err := migrate.PossibleDuplicates(filepath.Join(dir, "surveys.db.migrate-checkpoint"))
	if err != nil {
		t.Fatal(err)
	}
	dst, err := azure.New(azure.Config{ConnectionString: azuritetest.ConnectionString()})
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	seen := map[string]int{}
	twice := int64(0)
	for {
		msgs, err := dst.Dequeue(ctx, "killed", storage.MaxDequeue, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if len(msgs) == 0 {
			break
		}
		for _, m := range msgs {
			if seen[string(m.Data)]++; seen[string(m.Data)] > 1 {
				twice++
			}
		}
	}
	if len(seen) != messages || twice > possible["killed"] {
		t.Errorf("%d distinct messages (want %d), %d copied twice, the checkpoint allows %d", len(seen), messages, twice, possible["killed"])
	}
	t.Logf("%d kills; %d messages copied twice (%d possible)", kills, twice, possible["killed"])
}
