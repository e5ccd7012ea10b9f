fn main() {
    println!("restop");
}
