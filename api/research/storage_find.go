package research

import (
	"context"
	"net/http"

	models "github.com/gatehouse/gatehouse/models/research"
)

func storageFind(ctx context.Context, s *Service, c *Call) (any, error) {
	var in storageArgs
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	if _, err := s.project(ctx, c, in.ProjectID); err != nil {
		return nil, err
	}
	if in.Status == models.StorageExpired && !in.IncludeExpired {
		return nil, invalid("/include_expired", "status expired needs include_expired: true")
	}
	if in.Limit == 0 {
		in.Limit = 50
	}
	os, total, err := models.FindObjects(ctx, s.DB, models.StorageFilter{ProjectID: in.ProjectID, ID: in.ObjectID, Name: in.Name,
		Version: in.Version, Kind: in.Kind, Status: in.Status, IncludeExpired: in.IncludeExpired, Limit: in.Limit, Offset: in.Offset})
	if err != nil {
		return nil, err
	}
	rows := make([]any, 0, len(os))
	for _, o := range os {
		var download *storageTransferResp
		if in.IncludeDownload && o.Status == models.StorageAvailable {
			url, exp, err := s.downloadURL(ctx, o)
			if err != nil {
				return nil, err
			}
			download = &storageTransferResp{Method: http.MethodGet, URL: url, ExpiresAt: exp}
		}
		if in.Compact {
			v := objectCompactView(o)
			v.Download = download
			rows = append(rows, v)
			continue
		}
		v := objectView(o)
		v.Download = download
		rows = append(rows, v)
	}
	out := storageFindResp{Objects: rows, Total: total, Limit: in.Limit, Offset: in.Offset}
	if next := int64(in.Offset + len(os)); next < total {
		out.NextOffset = &next
	}
	return out, nil
}
