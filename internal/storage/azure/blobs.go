package azure

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"

	"github.com/surveys-dev/surveys/internal/storage"
)

// CreateContainer creates a container, with anonymous read access to its
// blobs when public. It succeeds if the container exists, whatever its
// access level.
func (s *Store) CreateContainer(ctx context.Context, name string, public bool) error {
	if err := storage.ValidateContainerName(name); err != nil {
		return err
	}
	var opts container.CreateOptions
	if public {
		opts.Access = to.Ptr(container.PublicAccessTypeBlob)
	}
	_, err := s.blobs.ServiceClient().NewContainerClient(name).Create(ctx, &opts)
	if err != nil && !bloberror.HasCode(err, bloberror.ContainerAlreadyExists) {
		return wrap(err, "create container %s", name)
	}
	return nil
}

// DeleteContainer deletes a container and its blobs.
func (s *Store) DeleteContainer(ctx context.Context, name string) error {
	if err := storage.ValidateContainerName(name); err != nil {
		return err
	}
	_, err := s.blobs.ServiceClient().NewContainerClient(name).Delete(ctx, nil)
	return wrap(err, "delete container %s", name)
}

// PutBlob writes a whole block blob in one request.
func (s *Store) PutBlob(ctx context.Context, containerName, name string, data []byte, o storage.PutOptions) (string, error) {
	if err := validateBlob(containerName, name); err != nil {
		return "", err
	}
	opts := &blockblob.UploadOptions{}
	if o.ContentType != "" {
		opts.HTTPHeaders = &blob.HTTPHeaders{BlobContentType: &o.ContentType}
	}
	if o.IfMatch != "" || o.IfNoneMatch != "" {
		mac := &blob.ModifiedAccessConditions{}
		if o.IfMatch != "" {
			mac.IfMatch = to.Ptr(azcore.ETag(o.IfMatch))
		}
		if o.IfNoneMatch != "" {
			mac.IfNoneMatch = to.Ptr(azcore.ETag(o.IfNoneMatch))
		}
		opts.AccessConditions = &blob.AccessConditions{ModifiedAccessConditions: mac}
	}
	client := s.blobs.ServiceClient().NewContainerClient(containerName).NewBlockBlobClient(name)
	resp, err := client.Upload(ctx, streaming.NopCloser(bytes.NewReader(data)), opts)
	if err != nil {
		return "", putBlobError(err, o, fmt.Sprintf("put blob %s/%s", containerName, name))
	}
	if resp.ETag == nil {
		return "", fmt.Errorf("azure: put blob %s/%s: %w", containerName, name, errNoResponse)
	}
	return string(*resp.ETag), nil
}

// putBlobError turns the service's answers to a failed condition into the
// errors PutBlob documents: a blob that is absent with If-Match (404
// BlobNotFound) fails the condition, and a blob that exists with
// If-None-Match "*" (409 BlobAlreadyExists) both fails the condition and
// already exists (ErrPrecondition and ErrExists).
func putBlobError(err error, o storage.PutOptions, op string) error {
	switch {
	case o.IfMatch != "" && bloberror.HasCode(err, bloberror.BlobNotFound):
		return fmt.Errorf("azure: %s: blob does not exist: %w: %w", op, storage.ErrPrecondition, err)
	case o.IfNoneMatch != "" && bloberror.HasCode(err, bloberror.BlobAlreadyExists):
		return fmt.Errorf("azure: %s: %w: %w", op, storage.ErrPrecondition, mapResponse(err))
	}
	return wrap(err, "%s", op)
}

// GetBlob reads a whole blob.
func (s *Store) GetBlob(ctx context.Context, containerName, name string) (storage.Blob, error) {
	if err := validateBlob(containerName, name); err != nil {
		return storage.Blob{}, err
	}
	client := s.blobs.ServiceClient().NewContainerClient(containerName).NewBlobClient(name)
	resp, err := client.DownloadStream(ctx, nil)
	if err != nil {
		return storage.Blob{}, wrap(err, "get blob %s/%s", containerName, name)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return storage.Blob{}, fmt.Errorf("azure: get blob %s/%s: read body: %w", containerName, name, err)
	}
	b := storage.Blob{Data: data, ContentType: deref(resp.ContentType)}
	if resp.ETag != nil {
		b.ETag = string(*resp.ETag)
	}
	if resp.LastModified != nil {
		b.LastModified = resp.LastModified.UTC()
	}
	return b, nil
}

// GetBlobInto is GetBlob with the blob's data read into buf
// (storage.BlobIntoReader): no new memory when it fits.
func (s *Store) GetBlobInto(ctx context.Context, containerName, name string, buf []byte) (storage.Blob, error) {
	if err := validateBlob(containerName, name); err != nil {
		return storage.Blob{}, err
	}
	client := s.blobs.ServiceClient().NewContainerClient(containerName).NewBlobClient(name)
	resp, err := client.DownloadStream(ctx, nil)
	if err != nil {
		return storage.Blob{}, wrap(err, "get blob %s/%s", containerName, name)
	}
	defer resp.Body.Close()
	data, err := readInto(resp.Body, resp.ContentLength, buf[:0])
	if err != nil {
		return storage.Blob{}, fmt.Errorf("azure: get blob %s/%s: read body: %w", containerName, name, err)
	}
	b := storage.Blob{Data: data, ContentType: deref(resp.ContentType)}
	if resp.ETag != nil {
		b.ETag = string(*resp.ETag)
	}
	if resp.LastModified != nil {
		b.LastModified = resp.LastModified.UTC()
	}
	return b, nil
}

// readInto reads body, of length n when known, appended to data.
func readInto(body io.Reader, n *int64, data []byte) ([]byte, error) {
	if n != nil && *n > 0 && *n <= 1<<30 {
		data = slices.Grow(data, int(*n))
		k, err := io.ReadFull(body, data[len(data):len(data)+int(*n)])
		data = data[:len(data)+k]
		if err != nil {
			return nil, err
		}
	}
	// The end (or all of it, its length unknown).
	var end [512]byte
	for {
		k, err := body.Read(end[:])
		data = append(data, end[:k]...)
		if err == io.EOF {
			if data == nil {
				data = []byte{}
			}
			return data, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// DeleteBlob deletes a blob whose ETag matches ifMatch ("" or "*": any).
func (s *Store) DeleteBlob(ctx context.Context, containerName, name, ifMatch string) error {
	if err := validateBlob(containerName, name); err != nil {
		return err
	}
	var opts blob.DeleteOptions
	if ifMatch != "" && ifMatch != storage.ETagAny {
		opts.AccessConditions = &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{
			IfMatch: to.Ptr(azcore.ETag(ifMatch)),
		}}
	}
	_, err := s.blobs.ServiceClient().NewContainerClient(containerName).NewBlobClient(name).Delete(ctx, &opts)
	return wrap(err, "delete blob %s/%s", containerName, name)
}

// ListBlobs returns one page of a container's blobs in name order.
func (s *Store) ListBlobs(ctx context.Context, containerName string, o storage.ListOptions) (storage.BlobPage, error) {
	if err := storage.ValidateContainerName(containerName); err != nil {
		return storage.BlobPage{}, err
	}
	max := o.MaxResults
	switch {
	case max < 0:
		return storage.BlobPage{}, fmt.Errorf("list blobs: max results %d: %w", max, storage.ErrInvalid)
	case max == 0 || max > storage.MaxListResults:
		max = storage.MaxListResults
	}
	opts := &container.ListBlobsFlatOptions{MaxResults: to.Ptr(int32(max))}
	if o.Prefix != "" {
		opts.Prefix = &o.Prefix
	}
	if o.Marker != "" {
		opts.Marker = &o.Marker
	}
	resp, err := s.blobs.ServiceClient().NewContainerClient(containerName).NewListBlobsFlatPager(opts).NextPage(ctx)
	if err != nil {
		return storage.BlobPage{}, wrap(err, "list blobs of %s", containerName)
	}
	page := storage.BlobPage{NextMarker: deref(resp.NextMarker)}
	if resp.Segment == nil {
		return page, nil
	}
	page.Items = make([]storage.BlobItem, 0, len(resp.Segment.BlobItems))
	for _, item := range resp.Segment.BlobItems {
		if item == nil || item.Name == nil {
			continue
		}
		bi := storage.BlobItem{Name: *item.Name}
		if p := item.Properties; p != nil {
			if p.ContentLength != nil {
				bi.Size = *p.ContentLength
			}
			if p.ETag != nil {
				bi.ETag = string(*p.ETag)
			}
			if p.LastModified != nil {
				bi.LastModified = p.LastModified.UTC()
			}
		}
		page.Items = append(page.Items, bi)
	}
	return page, nil
}

func validateBlob(containerName, name string) error {
	if err := storage.ValidateContainerName(containerName); err != nil {
		return err
	}
	return storage.ValidateBlobName(name)
}
