package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/mail/mailtest"
	"github.com/surveys-dev/surveys/internal/secret"
	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/azure"
	"github.com/surveys-dev/surveys/internal/storage/azure/azuritetest"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TestCampaignKill9TwoInstances is the campaigns' crash test: two
// `surveys serve` processes on one Azurite, with their workers on and one
// SMTP server (mailtest, whose log is the ledger), send a campaign of
// 2,000 contacts; the instance that is sending is killed with SIGKILL
// while mails flow, then started again, and the campaign finishes.
//
// The guarantee checked is the design's (docs/architecture.md, "A
// campaign's mail, once per contact and step"), no weaker: every contact
// gets the invitation, always under its own Message-ID
// <campaign>.0.<contact>@<public host> with its own personal link; a
// second copy (the same Message-ID) is allowed only for the one mail the
// killed process had in flight after the SMTP server accepted it and
// before its mark (at most one address for the one kill, and that copy is
// sent after the kill); nobody outside the list gets anything; the
// ledger says every contact sent and the campaign done.
//
// The servers run with --campaign-lease 20s, so that the survivor takes
// the killed instance's step and claims over 20 seconds after the kill
// instead of the default 5 minutes. Nothing waits a fixed time: the test
// polls, with generous deadlines.
func TestCampaignKill9TwoInstances(t *testing.T) {
	const (
		contacts  = 2000
		lease     = 20 * time.Second
		publicURL = "https://surveys.example"
	)
	start := time.Now()
	ctx := t.Context()
	cs := azuritetest.ConnectionString()
	st, err := azure.New(azure.Config{ConnectionString: cs})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := store.Init(ctx, st); err != nil {
		t.Fatal(err)
	}
	// The tests share Azurite: what this one made goes when it ends (after
	// its servers stop), so that a test that copies a store into the
	// account (TestMigrateToAzurite) finds it empty and counts only its own.
	t.Cleanup(func() { emptyAzurite(t, cs) })

	// A tenant of its own (the tests share Azurite), its survey taken by
	// personal link, a list of 2,000 contacts and the campaign, due now.
	var b [6]byte
	_, _ = rand.Read(b[:])
	tenant := "k" + hex.EncodeToString(b[:])
	if err := store.NewTenantStore(st).Create(ctx, &survey.Tenant{Key: tenant, Name: "Adatum", Plan: survey.Standard}); err != nil {
		t.Fatal(err)
	}
	sv := &survey.Survey{Tenant: tenant, Title: "Customer panel", State: survey.Published, OnePer: survey.OnePerLink,
		Questions: []survey.Question{{Text: "Rate us", Type: survey.FiveStars}}}
	if err := store.NewSurveyStore(st).Create(ctx, sv); err != nil {
		t.Fatal(err)
	}
	contactStore := store.NewContactStore(st)
	list, err := contactStore.CreateList(ctx, tenant, "Customers")
	if err != nil {
		t.Fatal(err)
	}
	var rs []survey.Recipient
	for i := range contacts {
		rs = append(rs, survey.Recipient{Email: fmt.Sprintf("c%04d@example.com", i), Name: fmt.Sprintf("Contact %d", i)})
	}
	if n, err := contactStore.Import(ctx, tenant, list.ID, rs); err != nil || n != contacts {
		t.Fatalf("import: %d contacts, %v", n, err)
	}
	campaigns := store.NewCampaignStore(st)
	c, err := campaigns.Create(ctx, tenant, store.NewCampaign{Survey: sv.Slug, List: list.ID, Subject: "Tell us", Text: "Dear customer,\n\nplease answer.",
		SendAt: time.Now(), CreatedBy: "ana@adatum.example"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("tenant %s, campaign %s of %d contacts ready in %v", tenant, c.ID, contacts, time.Since(start).Round(time.Millisecond))

	// The two instances.
	srv := mailtest.Start(t, mailtest.Options{})
	bin := buildServer(t)
	logs := t.TempDir()
	var (
		mu      sync.Mutex
		servers []*crashServer
	)
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, s := range servers {
			s.kill()
		}
		if t.Failed() {
			for _, s := range servers {
				s.logTail(t)
			}
		}
	})
	launch := func(n int) *crashServer {
		s := startCampaignServer(t, bin, logs, n, cs, srv.Addr, publicURL, lease)
		mu.Lock()
		servers = append(servers, s)
		mu.Unlock()
		return s
	}
	live := []*crashServer{launch(0), launch(1)}

	// Kill the instance that is sending, at a random point between a fifth
	// and about a half of the mails: the one whose count of mails sent
	// grew since the last look.
	threshold := contacts/5 + int(b[0])*2
	killDeadline := time.Now().Add(3 * time.Minute)
	last := make([]float64, len(live))
	victim, before, atKill := -1, 0, 0
	for victim < 0 {
		if time.Now().After(killDeadline) {
			t.Fatalf("no instance was seen sending within 3 minutes (%d mails in)", len(srv.Messages()))
		}
		if n := len(srv.Messages()); n >= contacts {
			t.Fatalf("the campaign's %d mails were all sent before an instance could be killed", n)
		}
		for i, s := range live {
			sent, err := campaignMailsSent(s.base)
			if err != nil {
				t.Fatalf("server %d: %v", s.n, err)
			}
			if sent > last[i] && len(srv.Messages()) >= threshold {
				victim = i
				break
			}
			last[i] = sent
		}
		if victim < 0 {
			time.Sleep(5 * time.Millisecond)
		}
	}
	before = len(srv.Messages())
	killed := time.Now()
	live[victim].kill()
	atKill = len(srv.Messages())
	t.Logf("killed server %d (SIGKILL) with %d mails in (%d once it was gone), %v after the start", live[victim].n, before, atKill, time.Since(start).Round(time.Millisecond))
	if atKill >= contacts {
		t.Fatalf("every mail was in when the server was killed: nothing was left to take over")
	}
	live[victim] = launch(2)

	// Until the ledger says the campaign is done.
	doneDeadline := time.Now().Add(5 * time.Minute)
	for {
		got, _, err := campaigns.Get(ctx, tenant, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Done {
			break
		}
		if time.Now().After(doneDeadline) {
			t.Fatalf("the campaign is not done 5 minutes after the kill: %d mails in", len(srv.Messages()))
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("campaign done %v after the kill, %v after the start", time.Since(killed).Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
	for _, s := range live {
		if err := s.terminate(30 * time.Second); err != nil {
			t.Errorf("server %d: %v", s.n, err)
		}
	}

	// The campaign's ledger: every contact sent.
	sends, err := campaigns.Sends(ctx, tenant, c.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	states := map[string]int{}
	for _, s := range sends {
		states[s.State]++
	}
	if len(sends) != contacts || states[store.SendSent] != contacts {
		t.Errorf("the ledger has %d rows for %d contacts: %v", len(sends), contacts, states)
	}

	// The SMTP server's log: each address once, under its own Message-ID
	// and with its own link; a second copy only of the mail in flight.
	box, err := secret.Load(crashSecretKey, "")
	if err != nil {
		t.Fatal(err)
	}
	key, err := unsubscribeKey(box)
	if err != nil {
		t.Fatal(err)
	}
	msgs := srv.Messages()
	at := map[string][]int{} // address: positions in the log
	for i, m := range msgs {
		if len(m.To) != 1 {
			t.Errorf("message %d is to %v", i, m.To)
			continue
		}
		at[m.To[0]] = append(at[m.To[0]], i)
	}
	var skipped, wrong, twice []string
	for _, r := range rs {
		pos := at[r.Email]
		delete(at, r.Email)
		if len(pos) == 0 {
			skipped = append(skipped, r.Email)
			continue
		}
		contact := store.ContactID(r.Email)
		wantID := fmt.Sprintf("<%s.0.%s@surveys.example>", c.ID, contact)
		wantLink := publicURL + "/survey/" + tenant + "/" + sv.Slug + "?k=" + store.CampaignToken(key, tenant, c.ID, contact)
		for _, p := range pos {
			if id := msgs[p].Header.Get("Message-Id"); id != wantID || !strings.Contains(msgs[p].Text, wantLink) {
				wrong = append(wrong, fmt.Sprintf("%s: message %d has Message-ID %s, want %s (its link is its own: %v)", r.Email, p, id, wantID, strings.Contains(msgs[p].Text, wantLink)))
			}
		}
		if len(pos) > 1 {
			twice = append(twice, r.Email)
			first, second := pos[0], pos[1]
			t.Logf("%s was mailed %d times, at positions %v of the log, each with Message-ID %s: the mail the killed server had in flight, accepted by the SMTP server before its mark", r.Email, len(pos), pos, wantID)
			if len(pos) > 2 || second < before || first > atKill {
				t.Errorf("%s: copies at positions %v of the log; the kill came after position %d (%d once the server was gone): "+
					"only the mail in flight at the kill may be sent again, once, after it", r.Email, pos, before, atKill)
			}
		}
	}
	for addr, pos := range at {
		wrong = append(wrong, fmt.Sprintf("%s is not in the list and got %d mails", addr, len(pos)))
	}
	if len(skipped) > 0 {
		t.Errorf("%d contacts got no invitation: %v", len(skipped), firstOf(skipped))
	}
	if len(wrong) > 0 {
		t.Errorf("%d wrong mails: %v", len(wrong), firstOf(wrong))
	}
	if len(twice) > 1 {
		t.Errorf("%d contacts were mailed more than once, at most 1 may be after one kill: %v", len(twice), firstOf(twice))
	}
	t.Logf("%d mails for %d contacts: %d contacts mailed twice (same Message-ID); total %v", len(msgs), contacts, len(twice), time.Since(start).Round(time.Millisecond))
}

// startCampaignServer starts the binary on Azure (the connection string
// cs), its worker on, its mail to the SMTP server at smtpAddr, and waits
// until it is ready.
func startCampaignServer(t *testing.T, bin, logs string, n int, cs, smtpAddr, publicURL string, lease time.Duration) *crashServer {
	t.Helper()
	var lastErr error
	for attempt := range 5 {
		s := &crashServer{n: n, logPath: filepath.Join(logs, fmt.Sprintf("server-%d-%d.log", n, attempt)), done: make(chan struct{})}
		addr := freeLoopbackAddr(t)
		s.base = "http://" + addr
		logf, err := os.Create(s.logPath)
		if err != nil {
			t.Fatal(err)
		}
		s.cmd = exec.Command(bin, "serve", "--addr", addr, "--storage", "azure", "--worker=true", "--seed=false",
			"--smtp-url", "smtp://"+smtpAddr+"?tls=none", "--mail-from", "Surveys <surveys@example.com>", "--public-url", publicURL,
			"--campaign-lease", lease.String(),
			"--mail-per-hour", "100000", "--mail-per-day", "100000", "--trial-mail-per-hour", "100000", "--trial-mail-per-day", "100000")
		// One secret key for both instances and every life: the same
		// personal links and unsubscribe links from each.
		s.cmd.Env = append(os.Environ(), "SURVEYS_SECRET_KEY="+crashSecretKey, "AZURE_STORAGE_CONNECTION_STRING="+cs)
		s.cmd.Stdout, s.cmd.Stderr = logf, logf
		err = s.cmd.Start()
		logf.Close()
		if err != nil {
			t.Fatalf("start server %d: %v", n, err)
		}
		go func() { _ = s.cmd.Wait(); close(s.done) }()
		if lastErr = s.waitReady(2 * time.Minute); lastErr == nil {
			return s
		}
		s.kill()
		t.Logf("server %d, attempt %d: %v", n, attempt, lastErr)
	}
	t.Fatalf("server %d did not start: %v", n, lastErr)
	return nil
}

// campaignMailsSent reads the server's count of campaign mails the SMTP
// server accepted, from its /metrics.
func campaignMailsSent(base string) (float64, error) {
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Get(base + "/metrics")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("GET /metrics: %s", resp.Status)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "surveys_campaign_mails_sent_total "); ok {
			return strconv.ParseFloat(v, 64)
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("GET /metrics: no surveys_campaign_mails_sent_total (is the campaigns worker on?)")
}

// emptyAzurite deletes every table, shared container and queue the store
// keeps from the account of connection string cs.
func emptyAzurite(t *testing.T, cs string) {
	ctx := context.Background()
	st, err := azure.New(azure.Config{ConnectionString: cs})
	if err != nil {
		t.Errorf("empty Azurite: %v", err)
		return
	}
	defer st.Close()
	for _, table := range store.Tables {
		if err := st.DeleteTable(ctx, table); err != nil && !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("delete table %s: %v", table, err)
		}
	}
	for _, c := range append(slices.Clone(store.SharedContainers), store.LogosContainer) {
		if err := st.DeleteContainer(ctx, c); err != nil && !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("delete container %s: %v", c, err)
		}
	}
	for _, q := range store.Queues {
		if err := st.DeleteQueue(ctx, q); err != nil && !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("delete queue %s: %v", q, err)
		}
	}
}
