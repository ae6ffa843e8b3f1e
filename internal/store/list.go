package store

import (
	"context"

	"github.com/surveys-dev/surveys/internal/storage"
)

// eachBlob calls f with every blob of container whose name starts with
// prefix, in name order, a page of the listing at a time. A container
// that does not exist holds none. what names the container's contents in
// an error ("Answers").
func eachBlob(ctx context.Context, st storage.Storage, container, prefix, what string, f func(storage.BlobItem) error) error {
	o := storage.ListOptions{Prefix: prefix}
	for {
		page, err := st.ListBlobs(ctx, container, o)
		if isContainerNotFound(err) {
			return nil
		}
		if err != nil {
			return mapErr(err, what)
		}
		for _, it := range page.Items {
			if err := f(it); err != nil {
				return err
			}
		}
		if page.NextMarker == "" {
			return nil
		}
		o.Marker = page.NextMarker
	}
}
