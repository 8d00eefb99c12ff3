//! The page's script and style sheet, embedded in the binary.

use axum::extract::Path;
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};

use super::page::PageError;
use crate::ServerError;

const APP_JS: &str = include_str!("../../web/static/app.js");
const STYLE_CSS: &str = include_str!("../../web/static/style.css");

/// `GET /ui/static/{file}`: `app.js` or `style.css`.
pub async fn file(Path(file): Path<String>) -> Response {
    let (body, kind) = match file.as_str() {
        "app.js" => (APP_JS, "text/javascript; charset=utf-8"),
        "style.css" => (STYLE_CSS, "text/css; charset=utf-8"),
        _ => {
            return PageError::Server(ServerError::NotFound(format!("no file `{file}`")))
                .into_response();
        }
    };
    ([(CONTENT_TYPE, kind)], body).into_response()
}
