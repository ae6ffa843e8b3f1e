package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

const tenantUsage = `Usage:
  surveys tenant list                       list the tenants, with their plan and state
  surveys tenant suspend --tenant T         stop a tenant's sign-in and surveys
  surveys tenant resume --tenant T          restart a suspended tenant
  surveys tenant plan --tenant T PLAN       change a tenant's plan
  surveys tenant delete --tenant T --yes    delete a tenant and all its data

Run "surveys tenant <command> -h" for its flags.
`

// tenantCommand runs the operator's "surveys tenant" commands: list the
// tenants, suspend or resume one, change its plan (sign-ups start on the
// Trial; a paid plan is the operator's change), or delete one with all its
// data.
func tenantCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	sub, err := subcommand("tenant", []string{"list", "suspend", "resume", "plan", "delete"}, tenantUsage, args, stdout, stderr)
	if err != nil {
		return err
	}
	sf, yes, names, err := parseTenantFlags(sub, args, stdout, stderr)
	if err != nil {
		return err
	}
	switch sub {
	case "list":
		return tenantList(ctx, sf, getenv, stdout, stderr)
	case "suspend", "resume":
		return tenantSuspend(ctx, sf, sub, getenv, stdout, stderr)
	case "plan":
		return tenantPlan(ctx, sf, names[0], getenv, stdout, stderr)
	case "delete":
		return tenantDelete(ctx, sf, yes, getenv, stdout, stderr)
	}
	return usagef("tenant: unknown command %q", sub)
}

// parseTenantFlags parses the flags of "surveys tenant sub" (args[0] is
// sub), before and after the plan's name: the storage and tenant flags,
// --yes of delete, and the names given, one for plan and none otherwise.
func parseTenantFlags(sub string, args []string, stdout, stderr io.Writer) (sf *storageFlags, yes bool, names []string, err error) {
	sf = &storageFlags{}
	uses := onTenant | anyStorage
	if sub == "list" {
		uses = anyStorage
	}
	fs := sf.flagSet("tenant "+sub, uses, stderr)
	synopsis := "--tenant T"
	switch sub {
	case "list":
		synopsis = ""
	case "plan":
		synopsis += " PLAN (one of " + fmt.Sprint(survey.Plans) + ")"
	case "delete":
		fs.BoolVar(&yes, "yes", false, "confirm: delete the tenant and all its data")
		synopsis += " --yes"
	}
	// Flags may come before and after the plan's name.
	for rest := args[1:]; ; rest = fs.Args()[1:] {
		if err := parseFlags(fs, synopsis, rest, stdout); err != nil {
			return nil, false, nil, err
		}
		if fs.NArg() == 0 {
			break
		}
		names = append(names, fs.Arg(0))
	}
	if (sub == "plan") != (len(names) == 1) || len(names) > 1 {
		if sub == "plan" {
			return nil, false, nil, usageOn(stderr, tenantUsage, "tenant plan: give one plan, one of %v", survey.Plans)
		}
		return nil, false, nil, usageOn(stderr, tenantUsage, "tenant %s: unexpected arguments %v", sub, names)
	}
	return sf, yes, names, nil
}

// tenantList prints the tenants, with their plan, creation day and state
// (active, suspended, or the day the trial ended).
func tenantList(ctx context.Context, sf *storageFlags, getenv func(string) string, stdout, stderr io.Writer) error {
	st, box, err := sf.openStorage(ctx, getenv, stderr)
	if err != nil {
		return fmt.Errorf("tenant list: %w", err)
	}
	defer st.Close()
	list, err := store.NewTenantStore(st).WithSecrets(box).List(ctx)
	if err != nil {
		return fmt.Errorf("tenant list: %w", err)
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tNAME\tPLAN\tCREATED\tSTATE")
	now := time.Now()
	for _, t := range list {
		state := "active"
		if err := t.CheckActive(now); err != nil {
			state = "suspended"
			if !t.Suspended {
				state = "trial ended " + t.TrialEnds().Format("2006-01-02")
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", t.Key, t.Name, t.Plan, t.CreatedOn.Format("2006-01-02"), state)
	}
	return tw.Flush()
}

// tenantSuspend suspends the tenant (sub "suspend") or resumes it
// ("resume").
func tenantSuspend(ctx context.Context, sf *storageFlags, sub string, getenv func(string) string, stdout, stderr io.Writer) error {
	st, box, err := sf.open(ctx, getenv, stderr)
	if err != nil {
		return fmt.Errorf("tenant %s: %w", sub, err)
	}
	defer st.Close()
	ts := store.NewTenantStore(st).WithSecrets(box)
	t, err := ts.Get(ctx, sf.tenant)
	if err != nil {
		return fmt.Errorf("tenant %s: %s", sub, survey.ErrorMessage(err))
	}
	t.Suspended = sub == "suspend"
	if err := ts.Update(ctx, t); err != nil {
		return fmt.Errorf("tenant %s: %s", sub, survey.ErrorMessage(err))
	}
	action := survey.AuditTenantSuspended
	if sub == "resume" {
		action = survey.AuditTenantResumed
	}
	operatorAudit(ctx, st, t.Key, action, t.Key, "surveys tenant "+sub, stderr)
	fmt.Fprintf(stdout, "%s: %sed (servers see it within 5 s)\n", t.Key, sub)
	return nil
}

// tenantPlan puts the tenant on the plan called name (in any case).
func tenantPlan(ctx context.Context, sf *storageFlags, name string, getenv func(string) string, stdout, stderr io.Writer) error {
	plan, ok := planNamed(name)
	if !ok {
		return fmt.Errorf("tenant plan: %q is not a plan; use one of %v", name, survey.Plans)
	}
	st, box, err := sf.open(ctx, getenv, stderr)
	if err != nil {
		return fmt.Errorf("tenant plan: %w", err)
	}
	defer st.Close()
	ts := store.NewTenantStore(st).WithSecrets(box)
	t, err := ts.Get(ctx, sf.tenant)
	if err != nil {
		return fmt.Errorf("tenant plan: %s", survey.ErrorMessage(err))
	}
	from := t.Plan
	t.Plan = plan
	if err := ts.Update(ctx, t); err != nil {
		return fmt.Errorf("tenant plan: %s", survey.ErrorMessage(err))
	}
	operatorAudit(ctx, st, t.Key, survey.AuditTenantPlan, t.Key, fmt.Sprintf("surveys tenant plan: %s (was %s)", plan, from), stderr)
	fmt.Fprintf(stdout, "%s: plan %s (was %s; servers see it within 5 s)\n", t.Key, plan, from)
	return nil
}

// tenantDelete deletes the tenant and all its data, when confirmed (yes),
// and says what went.
func tenantDelete(ctx context.Context, sf *storageFlags, yes bool, getenv func(string) string, stdout, stderr io.Writer) error {
	if !yes {
		return fmt.Errorf("tenant delete: this deletes %q and all its surveys and answers; add --yes to confirm", sf.tenant)
	}
	st, box, err := sf.open(ctx, getenv, stderr)
	if err != nil {
		return fmt.Errorf("tenant delete: %w", err)
	}
	defer st.Close()
	d, err := store.DeleteTenant(ctx, st, store.NewTenantStore(st).WithSecrets(box), sf.tenant)
	if err != nil {
		return fmt.Errorf("tenant delete: %w (run it again to finish)", err)
	}
	fmt.Fprintf(stdout, "%s: deleted %s, %s, %s, %s, %s\n", sf.tenant, survey.Count(d.Surveys, "survey"), survey.Count(d.Users, "account"), survey.Count(d.Sessions, "session"), survey.Count(d.Tokens, "API token"), survey.Count(d.Logos, "logo"))
	return nil
}

// planNamed returns the plan called name, in any case.
func planNamed(name string) (survey.Plan, bool) {
	for _, p := range survey.Plans {
		if strings.EqualFold(string(p), name) {
			return p, true
		}
	}
	return "", false
}
