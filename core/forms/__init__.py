"""Forms: key/value fields, selection states and empty values from widgets or page geometry,
and which values are personal data to redact."""
