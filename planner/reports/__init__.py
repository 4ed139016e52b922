"""Report building blocks shared by the HTML pages and (later) the CSV and PDF exports."""
