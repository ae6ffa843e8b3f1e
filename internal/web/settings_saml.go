package web

import (
	"context"
	"errors"
	"io"
	"maps"
	"net/http"
	"strings"
	"time"

	"github.com/surveys-dev/surveys/internal/outbound"
	"github.com/surveys-dev/surveys/internal/samlmeta"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// samlPage is the tenant's SAML settings: what to register at the
// identity provider (our entity ID, ACS URL and metadata), and the form
// that imports the provider's metadata and sets the group gate and the
// role mapping.
type samlPage struct {
	User   *store.Session
	Tenant *survey.Tenant
	// Ours, from the public URL ("" when none is configured).
	EntityID, ACSURL string
	NoPublicURL      bool
	KeepsSecrets     bool
	UsesOIDC         bool
	// The provider saved, if any.
	Configured               bool
	IdPEntityID, ImportedURL string
	UpdatedOn                time.Time
	// The form.
	MetadataURL, MetadataXML                                         string
	GroupAttribute, GroupValue, AdminGroup, EditorGroup, ViewerGroup string
	Saved, Removed                                                   bool
	Errors                                                           map[string]string
	Message                                                          string
}

func (s *Server) samlPageFor(r *http.Request, t *survey.Tenant, p *survey.SAMLProvider) samlPage {
	page := samlPage{User: sessionFrom(r.Context()), Tenant: t, UsesOIDC: t.UsesOIDC(), KeepsSecrets: s.saml.KeepsSecrets()}
	if e, a, err := s.samlEndpoints(t.Key); err == nil {
		page.EntityID, page.ACSURL = e, a
	} else {
		page.NoPublicURL = true
	}
	if p != nil {
		page.Configured, page.IdPEntityID, page.ImportedURL, page.UpdatedOn = true, p.EntityID, p.MetadataURL, p.UpdatedOn
		page.MetadataURL, page.GroupAttribute, page.GroupValue = p.MetadataURL, p.GroupAttribute, p.GroupValue
		page.AdminGroup, page.EditorGroup, page.ViewerGroup = p.AdminGroup, p.EditorGroup, p.ViewerGroup
	}
	return page
}

// samlSaved returns the tenant's saved provider, or nil.
func (s *Server) samlSaved(ctx context.Context, tenant string) (*survey.SAMLProvider, error) {
	p, err := s.saml.Get(ctx, tenant)
	if survey.ErrorCode(err) == survey.ENOTFOUND {
		return nil, nil
	}
	return p, err
}

// showSAMLSettings shows the tenant's SAML settings.
func (s *Server) showSAMLSettings(w http.ResponseWriter, r *http.Request) error {
	if s.saml == nil {
		return notFound("SAML sign-in is not offered on this server.")
	}
	t, err := s.tenants.Get(r.Context(), sessionFrom(r.Context()).Tenant)
	if err != nil {
		return err
	}
	p, err := s.samlSaved(r.Context(), t.Key)
	if err != nil {
		return err
	}
	page := s.samlPageFor(r, t, p)
	page.Saved, page.Removed = r.URL.Query().Get("saved") != "", r.URL.Query().Get("removed") != ""
	s.render(w, r, http.StatusOK, "saml", page)
	return nil
}

// maxSAMLSettingsForm bounds the settings form: the metadata file or
// text, and the fields.
const maxSAMLSettingsForm = 2*survey.MaxSAMLMetadata + 64<<10

// saveSAMLSettings imports the provider's metadata (a file, pasted XML, or
// a URL fetched through the guarded outbound client; none keeps the one
// saved), checks it and the group fields, makes the service provider's
// key on the first save, and saves; or removes the provider. A problem is
// shown beside its field (422) and nothing is saved.
func (s *Server) saveSAMLSettings(w http.ResponseWriter, r *http.Request) error {
	if s.saml == nil {
		return notFound("SAML sign-in is not offered on this server.")
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxSAMLSettingsForm)
	if err := r.ParseMultipartForm(maxSAMLSettingsForm); err != nil && !errors.Is(err, http.ErrNotMultipart) {
		return survey.Errorf(survey.EINVALID, "The form could not be read (the metadata may be too large: at most %d KiB).", survey.MaxSAMLMetadata>>10)
	}
	t, err := s.tenants.Get(r.Context(), sessionFrom(r.Context()).Tenant)
	if err != nil {
		return err
	}
	saved, err := s.samlSaved(r.Context(), t.Key)
	if err != nil {
		return err
	}
	f := r.PostForm
	if f.Get("action") == "remove" {
		if err := s.saml.Delete(r.Context(), t.Key); err != nil {
			return err
		}
		if saved != nil {
			s.audit(r, survey.AuditIdentity, "SAML "+saved.EntityID, "removed")
		}
		http.Redirect(w, r, "/"+t.Key+"/settings/saml?removed=1", http.StatusSeeOther)
		return nil
	}
	next := &survey.SAMLProvider{Tenant: t.Key, MetadataURL: strings.TrimSpace(f.Get("metadataUrl")),
		GroupAttribute: strings.TrimSpace(f.Get("groupAttribute")), GroupValue: strings.TrimSpace(f.Get("groupValue")),
		AdminGroup: strings.TrimSpace(f.Get("adminGroup")), EditorGroup: strings.TrimSpace(f.Get("editorGroup")), ViewerGroup: strings.TrimSpace(f.Get("viewerGroup"))}
	page := s.samlPageFor(r, t, saved)
	page.MetadataURL, page.MetadataXML = next.MetadataURL, f.Get("metadataXml")
	page.GroupAttribute, page.GroupValue, page.AdminGroup, page.EditorGroup, page.ViewerGroup = next.GroupAttribute, next.GroupValue, next.AdminGroup, next.EditorGroup, next.ViewerGroup
	fail := func(fields map[string]string) error {
		page.Errors, page.Message = fields, "The SAML identity provider was not saved; see each field."
		s.render(w, r, http.StatusUnprocessableEntity, "saml", page)
		return nil
	}
	switch {
	case page.NoPublicURL:
		return fail(map[string]string{"metadata": survey.ErrorMessage(errNoSAMLPublicURL)})
	case !page.KeepsSecrets:
		return fail(map[string]string{"metadata": "This server keeps no secrets: its operator must set SURVEYS_SECRET_KEY (or SURVEYS_SECRET_KEY_FILE) before a SAML identity provider can be saved (its service provider key is sealed with it)."})
	case t.UsesOIDC():
		return fail(map[string]string{"metadata": "Your organisation signs in through an OpenID Connect provider: remove it on the identity provider page first (one identity provider at a time)."})
	}
	// The group fields' problems are shown with the metadata's.
	probe, fields := *next, map[string]string{}
	probe.Metadata = "-"
	var fe *survey.Error
	if err := probe.ValidateSAML(); errors.As(err, &fe) {
		maps.Copy(fields, fe.Fields)
	}
	data, field, problem := s.samlMetadataFrom(r, next.MetadataURL, page.MetadataXML)
	if problem != "" {
		fields[field] = problem
		return fail(fields)
	}
	switch {
	case data != nil:
		ed, err := samlmeta.Parse(data)
		if err != nil {
			fields[field] = survey.ErrorMessage(err)
			return fail(fields)
		}
		next.Metadata, next.EntityID = string(data), ed.EntityID
		if field != "metadataUrl" {
			next.MetadataURL = ""
		}
	case saved != nil:
		next.Metadata, next.EntityID, next.MetadataURL = saved.Metadata, saved.EntityID, saved.MetadataURL
	}
	if err := next.ValidateSAML(); err != nil {
		var e *survey.Error
		if errors.As(err, &e) && e.Fields != nil {
			return fail(e.Fields)
		}
		return err
	}
	if saved != nil {
		next.SPKey, next.SPCertificate = saved.SPKey, saved.SPCertificate
	} else if next.SPKey, next.SPCertificate, err = newSPKey(t.Key, s.now()); err != nil {
		return err
	}
	if err := s.saml.Put(r.Context(), next); err != nil {
		if survey.ErrorCode(err) == survey.EINVALID {
			return fail(map[string]string{"metadata": survey.ErrorMessage(err)})
		}
		return err
	}
	s.audit(r, survey.AuditIdentity, "SAML "+next.EntityID, "saved")
	http.Redirect(w, r, "/"+t.Key+"/settings/saml?saved=1", http.StatusSeeOther)
	return nil
}

// samlMetadataFrom returns the metadata the form gives, first found of: a
// file, pasted XML, a URL to fetch; nil when none (keep the saved one).
// field names the form's field it came from, for a problem.
func (s *Server) samlMetadataFrom(r *http.Request, rawURL, pasted string) (data []byte, field, problem string) {
	if r.MultipartForm != nil {
		if fh := r.MultipartForm.File["metadataFile"]; len(fh) > 0 && fh[0].Size > 0 {
			if fh[0].Size > survey.MaxSAMLMetadata {
				return nil, "metadataFile", "The file is larger than 256 KiB; give your identity provider's own metadata, not a federation's."
			}
			f, err := fh[0].Open()
			if err != nil {
				return nil, "metadataFile", "The file could not be read."
			}
			defer f.Close()
			b, err := io.ReadAll(io.LimitReader(f, survey.MaxSAMLMetadata+1))
			if err != nil {
				return nil, "metadataFile", "The file could not be read."
			}
			return b, "metadataFile", ""
		}
	}
	if strings.TrimSpace(pasted) != "" {
		return []byte(strings.TrimSpace(pasted)), "metadataXml", ""
	}
	if rawURL != "" {
		b, err := s.fetchIdPMetadata(r.Context(), rawURL)
		if err != nil {
			s.log.Info("SAML metadata not fetched", "url", rawURL, "err", err)
			why := outbound.Problem(err)
			if errors.Is(err, errMetadataStatus) {
				why = "it did not answer with a document (its status was not 200 OK)"
			}
			return nil, "metadataUrl", "No metadata could be fetched from " + rawURL + ": " + why + ". Give your provider's public https metadata URL, or upload the file."
		}
		return b, "metadataUrl", ""
	}
	return nil, "", ""
}

// errMetadataStatus is a metadata URL that did not answer 200.
var errMetadataStatus = errors.New("the metadata URL did not answer with a document")

// fetchIdPMetadata fetches a provider's metadata through the guarded
// outbound client (checked URL and dialled address, redirects re-checked,
// capped body).
func (s *Server) fetchIdPMetadata(ctx context.Context, raw string) ([]byte, error) {
	client := s.oidc.client
	if err := client.CheckURL(raw); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		return nil, outbound.ErrBadURL
	}
	req.Header.Set("Accept", "application/samlmetadata+xml, application/xml, text/xml")
	resp, err := client.HTTP().Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, errMetadataStatus
	}
	return io.ReadAll(resp.Body)
}
