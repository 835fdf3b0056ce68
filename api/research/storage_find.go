package research

import (
	"context"

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
	q := s.DB.WithContext(ctx).Model(&models.StorageObject{}).Where("project_id = ?", in.ProjectID)
	if in.ObjectID != "" {
		q = q.Where("id = ?", in.ObjectID)
	}
	if in.Name != "" {
		q = q.Where("name = ?", in.Name)
	}
	if in.Version > 0 {
		q = q.Where("version = ?", in.Version)
	}
	if in.Kind != "" {
		q = q.Where("kind = ?", in.Kind)
	}
	switch {
	case in.Status != "":
		if in.Status == models.StorageExpired && !in.IncludeExpired {
			return nil, invalid("/include_expired", "status expired needs include_expired: true")
		}
		q = q.Where("status = ?", in.Status)
	case in.IncludeExpired:
		q = q.Where("status <> ?", models.StorageDeleted)
	default:
		q = q.Where("status NOT IN ?", []string{models.StorageExpired, models.StorageDeleted})
	}
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, err
	}
	if in.Limit == 0 {
		in.Limit = 50
	}
	var os []models.StorageObject
	if err := q.Order("created_at DESC, name, version DESC").Limit(in.Limit).Offset(in.Offset).Find(&os).Error; err != nil {
		return nil, err
	}
	rows := make([]map[string]any, 0, len(os))
	for _, o := range os {
		v := objectView(o, in.Compact)
		if in.IncludeDownload && o.Status == models.StorageAvailable {
			url, exp, err := s.downloadURL(ctx, o)
			if err != nil {
				return nil, err
			}
			v["download"] = map[string]any{"method": "GET", "url": url, "expires_at": exp}
		}
		rows = append(rows, v)
	}
	out := map[string]any{"objects": rows, "total": total, "limit": in.Limit, "offset": in.Offset}
	if next := int64(in.Offset + len(os)); next < total {
		out["next_offset"] = next
	}
	return out, nil
}
