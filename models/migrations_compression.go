package models

import (
	"fmt"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/migrate"
)

// compressionMigrations are the migrations that span every domain's
// tables.
func compressionMigrations() []migrate.Migration {
	return []migrate.Migration{{ID: "2026120410_lz4_payload_compression", Up: compressPayloadsWithLZ4}}
}

// compressPayloadsWithLZ4 makes PostgreSQL compress the text columns of
// Gatehouse's tables with lz4 instead of pglz when it was built with lz4
// (PostgreSQL 14 and later): a stored FlyLab tool result of tens of
// kilobytes is compressed on every write and decompressed on every read,
// and lz4 does both several times faster. Only the column's setting
// changes (values already stored keep their compression until rewritten);
// SQLite, and a server without lz4, keep what they have.
func compressPayloadsWithLZ4(tx *gorm.DB) error {
	if tx.Dialector.Name() != "postgres" {
		return nil
	}
	var hasLZ4 bool
	if err := tx.Raw(`SELECT COALESCE(bool_or('lz4' = ANY(enumvals)), false) FROM pg_settings
		WHERE name = 'default_toast_compression'`).Scan(&hasLZ4).Error; err != nil {
		return err
	}
	if !hasLZ4 {
		return nil
	}
	var stmts []string
	if err := tx.Raw(`SELECT format('ALTER TABLE %I ALTER COLUMN %I SET COMPRESSION lz4', c.table_name, c.column_name)
		FROM information_schema.columns c
		JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
		WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE' AND c.data_type = 'text'
			AND (c.table_name LIKE 'flylab\_%' OR c.table_name LIKE 'flywheel\_%' OR c.table_name LIKE 'research\_%')
		ORDER BY c.table_name, c.column_name`).Scan(&stmts).Error; err != nil {
		return err
	}
	for _, stmt := range stmts {
		if err := tx.Exec(stmt).Error; err != nil {
			return fmt.Errorf("%s: %w", stmt, err)
		}
	}
	return nil
}
