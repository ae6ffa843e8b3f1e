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
	var sf storageFlags
	var yes bool
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
	var names []string
	for rest := args[1:]; ; rest = fs.Args()[1:] {
		if err := parseFlags(fs, synopsis, rest, stdout); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		names = append(names, fs.Arg(0))
	}
	if (sub == "plan") != (len(names) == 1) || len(names) > 1 {
		if sub == "plan" {
			return usageOn(stderr, tenantUsage, "tenant plan: give one plan, one of %v", survey.Plans)
		}
		return usageOn(stderr, tenantUsage, "tenant %s: unexpected arguments %v", sub, names)
	}
	switch sub {
	case "list":
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
	case "suspend", "resume":
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
		fmt.Fprintf(stdout, "%s: %sed (servers see it within 5 s)\n", t.Key, sub)
		return nil
	case "plan":
		plan, ok := planNamed(names[0])
		if !ok {
			return fmt.Errorf("tenant plan: %q is not a plan; use one of %v", names[0], survey.Plans)
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
		fmt.Fprintf(stdout, "%s: plan %s (was %s; servers see it within 5 s)\n", t.Key, plan, from)
		return nil
	case "delete":
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
	return usagef("tenant: unknown command %q", sub)
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
